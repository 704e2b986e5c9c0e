/// What a kiosk is at its store's entrance, chosen when its manager enrolls it: the events its credential may
/// write follow from it (a credential is a key to one box's devices, not to the store's queue).
public enum KioskRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Prints paper tickets and sees them taken (or pulls one back in).
    case printer
    /// Reads codes at the door: admits, refuses, expires no-shows, counts people leaving.
    case door
    /// One box with both devices.
    case both

    public var prints: Bool { self != .door }
    public var guardsDoor: Bool { self != .printer }

    /// Whether a kiosk of this role writes events of this kind at all (the server checks the rest: whose
    /// ticket, when, how many). A day's start is every device's; a capacity is the manager's alone.
    public func writes(_ body: StoreEvent.Body) -> Bool {
        switch body {
        case .ticketIssued, .ticketCancelled: prints
        // A paper ticket is taken at its printer, or at a door that scanned it before the printer saw it go.
        case .ticketTaken: true
        case .ticketAdmitted, .scanRefused, .customerExited, .ticketExpired: guardsDoor
        // Staff at the door's manager page count those inside, let people in without a ticket, and pause and
        // resume the calls.
        case .countCorrected, .letIn, .linePaused, .lineResumed: guardsDoor
        case .dayStarted: true
        // The manager's capacity; a holder's journey, told through the server by the ticket's page.
        case .capacityChanged, .journeyTold: false
        // A type this version does not know: nobody of this version writes it.
        case .unknown: false
        }
    }
}
