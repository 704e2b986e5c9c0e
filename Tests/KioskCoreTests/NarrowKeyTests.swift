import Crypto
import FoundationEssentials
import Testing

@testable import KioskCore

/// The pure rules behind a kiosk credential as a narrow key (issue 43): a code is valid only under its
/// issuer's key, a key id shared by two keys hides neither, a derived id stands only for what it derives, a
/// kiosk voids only what is still in its printer, a ticket is one conflict however often it is admitted, and
/// text limits are counted in scalars, bounded in bytes.
@Suite struct NarrowKeyTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()

    func ms(_ n: Int64) -> Timestamp { Timestamp(milliseconds: n) }

    /// The shopper's app ticket, issued by the server, waiting first in line.
    func appTicketInLine() -> (QueueState, Ticket) {
        let app = Ticket(
            id: .v7(at: ms(1000)),
            store: store,
            kind: .app,
            code: TicketCode(prefix: "V", number: 1),
            issuedAt: ms(1000),
            issuer: ServerIssue.device
        )
        var queue = QueueState(capacity: 2)
        queue.apply(StoreEvent.new(.ticketIssued(app), store: store, device: ServerIssue.device, at: ms(1000)))
        return (queue, app)
    }

    /// A kiosk enrolled in the store registers its own key, reads a shopper's ticket id in the log and signs an
    /// "app" code for it: the door refuses it as forged (it used to admit it, and the shopper was then "already
    /// used"); the server's own code for the ticket is admitted.
    @Test func aCodeIsValidOnlyUnderItsIssuersKey() {
        let (queue, app) = appTicketInLine()
        let rogue = TicketSigner()
        let ring = KeyRing(devices: [(ServerIssue.device, signer.publicKey), ("rogue-kiosk", rogue.publicKey)])
        func decide(_ ticket: Ticket, signedBy key: TicketSigner) -> AdmissionDecision {
            let text = TicketCodec.encode(ticket, signer: key, prefix: prefix)
            let claims = Result { () throws(TicketCodec.DecodeError) in
                try TicketCodec.decode(text, prefix: prefix, keyRing: ring, store: store)
            }
            return Admission.decide(claims, queue: queue, now: ms(2000))
        }
        #expect(decide(app, signedBy: signer) == .admit(app.code))
        #expect(decide(app, signedBy: rogue) == .forged)
        // Its issuer's key, but another kind or number than the logged ticket: forged too.
        var other = app
        other.kind = .paper
        #expect(decide(other, signedBy: signer) == .forged)
        other = app
        other.code.number = 2
        #expect(decide(other, signedBy: signer) == .forged)
    }

    /// Two keys with one 4-byte id (a pair found by brute force, as an attacker would): the ring keeps both,
    /// each code verifies under its own key, with its own signer, and neither hides the other.
    @Test func keysSharingAnIDHideNeither() throws {
        var seen: [KeyID: TicketSigner] = [:]
        var pair: (TicketSigner, TicketSigner)?
        while pair == nil {
            let key = TicketSigner()
            if let first = seen[key.keyID] { pair = (first, key) } else { seen[key.keyID] = key }
        }
        let (a, b) = try #require(pair)
        #expect(a.keyID == b.keyID && a.publicKey.rawRepresentation != b.publicKey.rawRepresentation)
        let ring = KeyRing(devices: [("printer-a", a.publicKey), ("printer-b", b.publicKey)])
        #expect(ring.count == 2 && ring.entries(for: a.keyID).count == 2)
        let t = ticket(1, at: ms(1000))
        for (key, device) in [(a, "printer-a"), (b, "printer-b")] {
            let text = TicketCodec.encode(t, signer: key, prefix: prefix)
            let claims = try TicketCodec.decode(text, prefix: prefix, keyRing: ring, store: store)
            #expect(claims.signer == device)
        }
    }

    /// A derived id (version 8) is anyone's to compute from a store's id: it stands only for that store's start
    /// of that day, never for another event, another day or another store's.
    @Test func aDerivedIDStandsOnlyForWhatItDerives() {
        let day = BusinessDay(number: 20_000)
        let start = StoreEvent.dayStarted(day, store: store, device: "k1", at: ms(0))
        #expect(start.id.isDerived && start.isDerivedCorrectly)
        var claimed = StoreEvent.new(.customerExited, store: store, device: "k1", at: ms(0))
        #expect(!claimed.id.isDerived && claimed.isDerivedCorrectly)
        claimed.id = start.id
        #expect(!claimed.isDerivedCorrectly, "an exit under a day start's id")
        var otherDay = start
        otherDay.body = .dayStarted(BusinessDay(number: 20_001), hours: nil)
        #expect(!otherDay.isDerivedCorrectly)
        var otherStore = start
        otherStore.store = UUID()
        #expect(!otherStore.isDerivedCorrectly)
    }

    /// A kiosk voids a ticket still in its printer; one already taken may be in a hand, and stays in line. A
    /// holder's or manager's cancel (through the server) cancels a ticket in line.
    @Test func aKioskVoidsOnlyWhatIsStillInItsPrinter() {
        let inPrinter = ticket(1, at: ms(1000))
        let taken = ticket(2, at: ms(1000))
        var queue = QueueState(capacity: 0)
        for t in [inPrinter, taken] { queue.apply(event(.ticketIssued(t), at: ms(1000))) }
        queue.apply(event(.ticketTaken(taken.id), at: ms(1100)))
        queue.apply(event(.ticketCancelled(inPrinter.id), at: ms(1200)))
        queue.apply(event(.ticketCancelled(taken.id), at: ms(1200)))
        #expect(queue.stage(of: inPrinter.id) == .cancelled)
        #expect(queue.stage(of: taken.id) == .waiting(joined: ms(1100)))
        queue.apply(StoreEvent.new(.ticketCancelled(taken.id), store: store, device: ServerIssue.device, at: ms(1300)))
        #expect(queue.stage(of: taken.id) == .cancelled)
    }

    /// 200,000 admissions of one ticket were 200,000 conflicts, kept for ever and copied into every status:
    /// a ticket is one conflict however often doors say so, and the day's start clears the day's conflicts.
    @Test func aTicketIsOneConflictAndTheDayClearsThem() {
        let t = ticket(1, at: ms(1000))
        var queue = QueueState(capacity: 5)
        queue.apply(event(.ticketIssued(t), at: ms(1000)))
        queue.apply(event(.ticketTaken(t.id), at: ms(1100)))
        for n in 0..<1000 {
            queue.apply(event(.ticketAdmitted(t.id, door: "door-\(n % 3)"), at: ms(2000 + Int64(n))))
        }
        #expect(queue.conflicts.count == 1)
        #expect(queue.inside == 1)
        queue.apply(StoreEvent.dayStarted(BusinessDay(number: 1), store: store, device: "d", at: ms(10_000)))
        #expect(queue.conflicts.isEmpty)
    }

    /// A letter and a million combining marks is one `Character`: limits count scalars, and look at the byte
    /// count first (a text of more than 4 bytes a scalar over the limit is refused without being walked).
    @Test func textLimitsCountScalarsBoundedInBytes() {
        let limit = TextLimit.atMost(200)
        let grapheme = "a" + String(repeating: "\u{0301}", count: 1_000_000)
        #expect(grapheme.count == 1)
        #expect(!limit.allows(grapheme))
        #expect(limit.allows(String(repeating: "é", count: 200)))  // 400 bytes, 200 scalars
        #expect(!limit.allows(String(repeating: "e", count: 201)))
        #expect(limit.allows(String(repeating: "😀", count: 200)))  // 800 bytes
        #expect(!TextLimit(1...64).allows(""))
        #expect(TextLimit(3...64).allows("abc") && !TextLimit(3...64).allows("ab"))
    }

    /// A no-show is a waiting ticket called longer ago than the call window: what the server lets a door
    /// expire.
    @Test func aNoShowIsCalledLongerAgoThanTheWindow() {
        let (queue, app) = appTicketInLine()
        let policy = AdmissionPolicy(callWindow: .seconds(600))
        #expect(!Admission.isNoShow(app.id, queue: queue, now: ms(1000 + 599_000), policy: policy))
        #expect(Admission.isNoShow(app.id, queue: queue, now: ms(1000 + 601_000), policy: policy))
        #expect(!Admission.isNoShow(UUID(), queue: queue, now: ms(1000 + 601_000), policy: policy))
    }
}
