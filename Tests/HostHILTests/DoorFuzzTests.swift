import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import ServiceSupport
@_spi(Seeding) import StationStore
import TestSupport
import Testing

@testable import KioskStation
@testable import Rigs

/// A million bad scanner lines into a running door over a pty: random bytes, over-long lines, altered
/// signatures, replays of a used ticket, other stores' codes, expired tickets and unknown signers. No crash,
/// every line refused with its own reason, in order, and the log intact afterwards.
@Suite(.serialized) struct DoorFuzzTests {
    static let lines = 1_000_000

    enum Kind: UInt8, CaseIterable {
        case randomBytes, overLong, alteredSignature, replay, otherStore, expired, unknownSigner

        var reason: String {
            switch self {
            case .randomBytes, .overLong: return "unreadable"
            case .alteredSignature, .unknownSigner: return "forged"
            case .replay: return "already_used"
            case .otherStore: return "wrong_store"
            case .expired: return "expired"
            }
        }

        /// Out of 100 lines.
        var weight: Int {
            switch self {
            case .randomBytes: return 30
            case .overLong: return 1
            case .alteredSignature: return 20
            case .replay: return 15
            case .otherStore: return 15
            case .expired: return 14
            case .unknownSigner: return 5
            }
        }
    }

    func randomBytes(_ count: Int, _ rng: inout SplitMix64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count { withUnsafeBytes(of: rng.next()) { bytes += $0 } }
        return Array(bytes.prefix(count))
    }

    @Test func aMillionBadLinesAreEachRefusedWithTheirReason() async throws {
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        // A store open round the clock whose clock reads about noon: a run of two minutes never crosses its
        // day's turn (with the configuration's own day, turning at 07:00 UTC, a run at 06:58 UTC found every
        // ticket of the set-up "from an earlier day").
        let zone = StoreTimeZone(fixedOffsetSeconds: SyncedGuest.noonOffsetMinutes() * 60)
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.printer.enabled = false
            $0.store.capacity = 5
            $0.store.timeZone = zone
            $0.store.hours = .standardStore
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            try await run(rig, scanner)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    func run(_ rig: StationRig, _ scanner: SerialScannerEmulator) async throws {
        let kiosk = rig.kiosk
        let door = try #require(kiosk.door)
        let config = kiosk.config
        let signer = try kiosk.store.signingKey()
        let start = WallClock.system.now()
        func ticket(_ number: Int, store: StoreID? = nil) -> Ticket {
            Ticket(
                id: .v7(at: start),
                store: store ?? config.store.id,
                kind: .paper,
                code: TicketCode(prefix: "A", number: number),
                issuedAt: start,
                issuer: config.device.id
            )
        }
        func event(_ body: StoreEvent.Body) -> StoreEvent {
            StoreEvent(id: .v7(at: start), store: config.store.id, device: config.device.id, time: start, body: body)
        }
        let used = ticket(1)
        let expired = ticket(2)
        let setup = [
            event(.ticketIssued(used)), event(.ticketTaken(used.id)), event(.ticketIssued(expired)),
            event(.ticketTaken(expired.id)), event(.ticketExpired(expired.id)),
        ]
        try kiosk.store.append(setup)
        kiosk.queue.apply(setup)
        let prefix = config.store.statusURL
        let usedCode = TicketCodec.encode(used, signer: signer, prefix: prefix)
        let expiredCode = TicketCodec.encode(expired, signer: signer, prefix: prefix)
        let otherStoreCode = TicketCodec.encode(ticket(3, store: UUID()), signer: TicketSigner(), prefix: prefix)
        let unknownSignerCode = TicketCodec.encode(ticket(4), signer: TicketSigner(), prefix: prefix)
        let usedRecord = try #require(TicketCodec.record(of: usedCode.dropFirst(prefix.count)))

        #expect(await rig.wait { door.status.state == "ready" } != nil)
        try scanner.scan(usedCode)
        #expect(await rig.wait { door.status.admitted == 1 } != nil)

        // The lines and the reason each must get.
        var rng = SplitMix64(seed: 0xD00B)
        var expected: [Kind] = []
        expected.reserveCapacity(Self.lines)
        let table = Kind.allCases.flatMap { Array(repeating: $0, count: $0.weight) }
        var stream: [UInt8] = []
        stream.reserveCapacity(Self.lines * 190)
        for _ in 0..<Self.lines {
            let kind = table.randomElement(using: &rng)!
            expected.append(kind)
            switch kind {
            case .randomBytes:
                // Any byte but the line ends (a CR would end the line early, a lone LF is skipped as noise).
                stream += randomBytes(Int.random(in: 1...200, using: &rng), &rng).map {
                    $0 == 0x0D || $0 == 0x0A ? 0 : $0
                }
            case .overLong:
                stream += randomBytes(Int.random(in: 4097...9000, using: &rng), &rng).map { 0x21 + $0 % 94 }
            case .alteredSignature:
                var record = usedRecord
                record[Int.random(in: 54..<118, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
                stream += Array((prefix + TicketCodec.text(of: record)).utf8)
            case .replay: stream += Array(usedCode.utf8)
            case .otherStore: stream += Array(otherStoreCode.utf8)
            case .expired: stream += Array(expiredCode.utf8)
            case .unknownSigner: stream += Array(unknownSignerCode.utf8)
            }
            stream.append(0x0D)
        }

        let clock = ContinuousClock()
        let began = clock.now
        let feeder = Thread { [stream] in
            var offset = 0
            while offset < stream.count {
                let end = min(offset + 65536, stream.count)
                do {
                    try scanner.send(Array(stream[offset..<end]))
                } catch {
                    print("feeding the scanner failed at byte \(offset): \(error)")
                    return
                }
                offset = end
            }
        }
        feeder.start()
        let done = await rig.wait(.seconds(900)) { door.status.refused >= Self.lines }
        let elapsed = clock.now - began
        try #require(done != nil, "only \(door.status.refused) of \(Self.lines) lines decided in 900 s")
        print("\(Self.lines) bad lines (\(stream.count) bytes) decided in \(elapsed)")
        #expect(door.status.refused == Self.lines && door.status.admitted == 1)
        #expect(door.status.state == "ready")

        // The log: one refusal per line, in order, with its reason; the ticket named where it was readable.
        let events = try kiosk.store.events()
        let refusals = events.compactMap { e -> (String, TicketID?)? in
            if case .scanRefused(let reason, let ticket, _) = e.body { return (reason, ticket) }
            return nil
        }
        try #require(refusals.count == Self.lines)
        var wrong: [String] = []
        for (i, (kind, refusal)) in zip(expected, refusals).enumerated() {
            var ok = kind.reason == refusal.0
            if kind == .replay { ok = ok && refusal.1 == used.id }
            if kind == .expired { ok = ok && refusal.1 == expired.id }
            if !ok && wrong.count < 10 { wrong.append("line \(i): \(kind) expected \(kind.reason), got \(refusal.0)") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        // The setup, the admission, the day's start the kiosk wrote when it started, and one refusal per line.
        #expect(events.filter { $0.kind == "dayStarted" }.count == 1)
        #expect(events.count == setup.count + 1 + 1 + Self.lines)

        #expect(try kiosk.store.integrityCheck() == ["ok"])
        // What a restart would rebuild from disk is what the running door holds.
        #expect(QueueState(capacity: 5, events: events) == kiosk.queue.snapshot)
        #expect(kiosk.queue.snapshot.inside == 1)
    }
}
