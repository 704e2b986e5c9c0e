import Hummingbird
import SyncWire

extension Refusal {
    /// The one place a refusal becomes an HTTP status.
    var status: HTTPResponse.Status {
        switch code {
        case .invalid: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .tooLarge: .contentTooLarge
        case .workRequired: .preconditionRequired
        case .tooMany: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .upgradeRequired: .upgradeRequired
        case .failed: .internalServerError
        }
    }
}

extension APIError {
    /// The answer to `refusal`: its status, words, field, reason and waiting time.
    init(_ refusal: Refusal) {
        self.init(refusal.status, refusal.message, field: refusal.field, retryAfter: refusal.retryAfter)
        reason = refusal.reason
        if refusal.code == .upgradeRequired { upgrade = "CLup-Sync/\(SyncProtocol.current)" }
    }
}
