import KioskCore

/// The last few codes the door verified and what came out: a scanner often reads the same code several
/// times in a row, and a customer scans again when refused, so a signature is checked once, not per read.
/// Outcomes that may change (an unknown key, which may be trusted later) are not kept; a new key ring
/// empties it.
struct VerifiedCodes {
    typealias Outcome = Result<TicketCodec.Claims, TicketCodec.DecodeError>

    let capacity: Int
    private var outcomes: [String: Outcome] = [:]
    private var order: [String] = []
    private var next = 0

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    func outcome(of text: String) -> Outcome? { outcomes[text] }

    mutating func remember(_ text: String, _ outcome: Outcome) {
        if case .failure(.unknownKey) = outcome { return }
        guard outcomes[text] == nil else { return }
        if order.count < capacity {
            order.append(text)
        } else {
            outcomes[order[next]] = nil
            order[next] = text
            next = (next + 1) % capacity
        }
        outcomes[text] = outcome
    }

    mutating func removeAll() {
        outcomes.removeAll()
        order.removeAll()
        next = 0
    }
}
