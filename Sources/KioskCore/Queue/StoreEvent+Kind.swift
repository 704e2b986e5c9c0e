extension StoreEvent {
    /// Every event type this version knows, each name written once: ``StoreEvent/Body/known`` maps every case of
    /// the body to one, and the coding writes and reads a type by it, so a new type is a case here and in
    /// ``Body``, its fields' coding and its fold — the compiler names every switch that lacks it.
    public enum Kind: String, Sendable, CaseIterable {
        case ticketIssued, ticketTaken, ticketAdmitted, customerExited, ticketExpired, ticketCancelled
        case capacityChanged, dayStarted, scanRefused, countCorrected, letIn, linePaused, lineResumed
        case journeyTold
    }
}

extension StoreEvent.Body {
    /// This body's type, nil for one this version does not know (``unknown(type:fields:)``).
    public var known: StoreEvent.Kind? {
        switch self {
        case .ticketIssued: .ticketIssued
        case .ticketTaken: .ticketTaken
        case .ticketAdmitted: .ticketAdmitted
        case .customerExited: .customerExited
        case .ticketExpired: .ticketExpired
        case .ticketCancelled: .ticketCancelled
        case .capacityChanged: .capacityChanged
        case .dayStarted: .dayStarted
        case .scanRefused: .scanRefused
        case .countCorrected: .countCorrected
        case .letIn: .letIn
        case .linePaused: .linePaused
        case .lineResumed: .lineResumed
        case .journeyTold: .journeyTold
        case .unknown: nil
        }
    }
}
