import KioskCore

/// What a rule of the server refuses: the one error the services, the queues and the model throw. It says what
/// to fix in words a client can show (``message``, with the request ``field`` at fault) and, by its ``code``,
/// what kind of refusal it is; the routes answer it in HTTP in one place (`Refusal+HTTP.swift`).
public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The request is not of the documented form (a field out of range, a bad date).
        case invalid
        /// No credential, or one the server does not know.
        case unauthorized
        /// A known credential that may not do this (another store's, a door's).
        case forbidden
        case notFound
        /// The request is well formed but the state forbids it now (a used ticket, a full slot).
        case conflict
        case tooLarge
        /// A shopper's request needs its proof of work first (``TicketWork``).
        case workRequired
        /// Too many requests: try again after ``Refusal/retryAfter`` seconds.
        case tooMany
        /// The server cannot do this for now (a replica, numbers used up): try again later.
        case unavailable
        /// A kiosk speaks an older sync protocol than the server serves: update kioskd.
        case upgradeRequired
        /// Something failed inside; the message gives nothing of the inside away.
        case failed
    }

    public var code: Code
    public var message: String
    /// The request field at fault (`capacity`, `location.latitude`), when there is one.
    public var field: String?
    /// Seconds, for ``Code/tooMany`` and ``Code/unavailable``.
    public var retryAfter: Int?
    /// A short key a client can tell the case by, where one code covers several (`closed`).
    public var reason: String?

    public init(_ code: Code, _ message: String, field: String? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.retryAfter = retryAfter
    }

    public static func invalid(_ message: String, field: String? = nil) -> Refusal {
        Refusal(.invalid, message, field: field)
    }

    public static let unauthorized = Refusal(.unauthorized, "missing or invalid credentials")

    public static func notFound(_ what: String) -> Refusal { Refusal(.notFound, "\(what) not found") }

    /// What an unexpected failure answers: nothing of the server's inside.
    public static let failed = Refusal(.failed, "the server could not complete this request — try again later")

    /// What `error` refuses, or nil for an error that is no refusal (a failure, logged and answered as
    /// ``failed`` without its details).
    public init?(refusing error: any Error) {
        switch error {
        case let refusal as Refusal:
            self = refusal
        case let refusal as StorageRefusal:
            switch refusal {
            case .storeRegistered: self.init(.conflict, refusal.description, field: "store.name")
            case .managerNameTaken: self.init(.conflict, refusal.description, field: "manager.username")
            case .ticketOfAnotherStore(_, let index):
                self.init(.conflict, refusal.description, field: "events[\(index)].body.ticket.id")
            }
        case let usedUp as TicketNumbersUsedUp:
            self.init(.unavailable, usedUp.description)
        default:
            return nil
        }
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }
}
