import KioskCore

/// Which kiosks and servers sync with each other. Every kiosk request says its protocol in the
/// ``header`` (`CLup-Sync-Protocol: 2`); a request without one is a kioskd from before the header, protocol 1.
/// Every event page says the server's (``EventPage/syncProtocol``).
///
/// - 1: kioskd before this header. An event type it does not know fails its whole pull: it stops following the
///   store's log at the first one.
/// - 2: keeps an event of a type it does not know (a newer server's), counts it and asks for an update; never
///   stops pulling (docs/architecture.md#sync).
///
/// The policy (docs/deployment.md#kiosks-across-versions): a server serves kiosks of its own protocol and of the ``supportedBehind``
/// before it, and every newer one (a newer kiosk's new event types are refused one by one, with "upgrade
/// clup-server"). An operator may raise the oldest served (`--oldest-kiosk-protocol`), e.g. to 2 before a
/// server that writes new event types goes live: a kiosk older than that is answered 426 with what to do, and
/// says so on its display and `/status`, instead of freezing on the first event it cannot read.
public enum SyncProtocol {
    /// The request header a kiosk says its protocol in.
    public static let header = "CLup-Sync-Protocol"
    /// The protocol this code speaks.
    public static let current = 2
    /// The protocol of a kiosk that sends no header.
    public static let withoutHeader = 1
    /// How many protocols before its own a server serves unless told otherwise.
    public static let supportedBehind = 2
    /// The oldest protocol a server serves unless told otherwise.
    public static var oldestServedByDefault: Int { max(withoutHeader, current - supportedBehind) }

    /// The protocol a request's header value says; ``withoutHeader`` for none, nil for a value that is not a
    /// protocol number (1 to 4 decimal digits, the first not 0).
    public static func of(header value: String?) -> Int? {
        guard let value else { return withoutHeader }
        let digits = Array(value.utf8)
        guard (1...4).contains(digits.count), let first = digits.first, (0x31...0x39).contains(first),
            digits.allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        return Int(value)
    }
}

extension SyncProtocol {
    /// The oldest protocol whose kiosks go on pulling past an event of `kind`: protocol 1 knew the types up to
    /// `scanRefused` and stops at any other (its line freezes); protocol 2 and later keep any type they do not
    /// know and let it change nothing. A server still serving protocol 1 writes a newer type only where no
    /// kiosk of the store speaks it (``Fleet/requireNoneFreezes(on:store:)``).
    public static func oldestReading(_ kind: StoreEvent.Kind) -> Int {
        switch kind {
        case .ticketIssued, .ticketTaken, .ticketAdmitted, .customerExited, .ticketExpired, .ticketCancelled,
            .capacityChanged, .dayStarted, .scanRefused:
            withoutHeader
        case .countCorrected, .letIn, .linePaused, .lineResumed, .journeyTold:
            2
        }
    }
}
