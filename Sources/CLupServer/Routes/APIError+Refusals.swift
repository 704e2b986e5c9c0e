import Hummingbird
import KioskCore

extension APIError {
    /// The answer to what storage or a domain rule refused, or nil for an error that is no refusal (a failure:
    /// answered 500 without its details).
    init?(refusal error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let refusal as StorageRefusal:
            switch refusal {
            case .storeRegistered: self.init(.conflict, refusal.description, field: "store.name")
            case .managerNameTaken: self.init(.conflict, refusal.description, field: "manager.username")
            }
        case let usedUp as TicketNumbersUsedUp:
            self.init(.serviceUnavailable, usedUp.description)
        default:
            return nil
        }
    }
}
