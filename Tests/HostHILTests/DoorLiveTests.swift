import DeviceEmulators
import Drivers
import Foundation
import FoundationNetworking
import KioskCore
import ServiceSupport
@_spi(Seeding) import StationStore
import Testing

@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
#endif

/// What the store manager sees and touches: the live page's event stream follows every decision and exit,
/// a serial scanner gets its beep/LED command, and the key ring on disk lets a door verify another kiosk's
/// tickets.
@Suite(.serialized) struct DoorLiveTests {
    struct Live: Decodable {
        struct Queue: Decodable {
            struct Counted: Decodable {
                var inside: Int
                var by: String
            }
            var inside: Int
            var capacity: Int
            var waiting: Int
            var counted: Counted?
            var paused: Paused?
        }
        struct Paused: Decodable {
            var reason: String
            var until: String?
        }
        struct Door: Decodable {
            struct Decision: Decodable {
                var reason: String
                var code: String?
            }
            var last: Decision?
            var exits: Int
        }
        var queue: Queue
        var door: Door?
    }

    static func post(_ port: Int, _ path: String, _ body: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"))
    func livePageFollowsDecisionsAndExits() async throws {
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.store.capacity = 3
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
            $0.door.feedbackAdmit = Array("\u{16}M\rBEPEXE1.".utf8)
            $0.door.feedbackRefuse = [0x07, 0x07]
        }
        do {
            try await rig.requireTickets(1)
            await rig.customerTakes()
            let tickets = try await rig.requireTickets(2)
            let png = try #require(tickets[0].pngPath)
            let payload = try #require(HIL.decodeQR(png: png).first)
            let door = try #require(rig.kiosk.door)
            #expect(await rig.wait { door.status.state == "ready" } != nil)
            let port = try #require(rig.kiosk.httpPort.wait())

            let page = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/")!)
            let html = String(decoding: page.0, as: UTF8.self)
            #expect(html.contains("new EventSource(\"events\")") && html.contains("door/exit"))

            let stream = try EventStreamClient(port: port)
            let decoder = JSONDecoder()
            func nextLive() async -> Live? {
                guard let data = await stream.next() else { return nil }
                return try? decoder.decode(Live.self, from: Data(data.utf8))
            }
            /// Events until one satisfies `condition` (the stream may coalesce or add heartbeats).
            func until(_ condition: (Live) -> Bool) async -> Live? {
                for _ in 0..<50 {
                    guard let live = await nextLive() else { return nil }
                    if condition(live) { return live }
                }
                return nil
            }
            let first = try #require(await nextLive())
            #expect(stream.headers.lowercased().contains("content-type: text/event-stream"))
            #expect(first.queue.waiting == 1 && first.queue.capacity == 3)

            try scanner.send(Array("\u{1}\u{2}garbage".utf8) + [0x0D])
            #expect(await until { $0.door?.last?.reason == "unreadable" } != nil)
            #expect(try scanner.received(timeout: .seconds(2)) == [0x07, 0x07])

            try scanner.scan(payload)
            let admitted = try #require(await until { $0.door?.last?.reason == "admit" })
            #expect(admitted.door?.last?.code == "A001" && admitted.queue.inside == 1)
            #expect(try scanner.received(timeout: .seconds(2)) == Array("\u{16}M\rBEPEXE1.".utf8))

            #expect(try await Self.post(port, "/door/exit").0 == 202)
            let exited = try #require(await until { $0.door?.exits == 1 })
            #expect(exited.queue.inside == 0)
            let (status, body) = try await Self.post(port, "/door/exit")
            #expect(status == 409 && body.contains("nobody is inside"))
            #expect(try rig.kiosk.store.events().filter { $0.kind == "customerExited" }.count == 1)

            // Staff count 4 inside (the beam missed some coming in), let two in without a ticket; bad values are
            // named and change nothing; the exit counts on from staff's count.
            #expect(try await Self.post(port, "/door/count", #"{"inside": 4}"#).0 == 202)
            let counted = try #require(await until { $0.queue.inside == 4 })
            #expect(counted.queue.counted?.inside == 4 && counted.queue.counted?.by == rig.kiosk.config.device.id)
            #expect(try await Self.post(port, "/door/let-in", #"{"people": 2, "reason": "a carer"}"#).0 == 202)
            #expect(await until { $0.queue.inside == 6 } != nil)
            for (path, body, says) in [
                ("/door/count", #"{"inside": -3}"#, "the people inside"),
                ("/door/count", #"{"inside": "four"}"#, "send {"),
                ("/door/let-in", #"{"people": 50, "reason": "x"}"#, "the people let in"),
                ("/door/let-in", #"{"people": 1, "reason": ""}"#, "why they were let in"),
                ("/door/let-in", String(repeating: " ", count: 5_000), "send {"),
            ] {
                let (status, answer) = try await Self.post(port, path, body)
                #expect(status == 400 && answer.contains(says), "\(path) \(body.prefix(40)): \(status) \(answer)")
            }
            #expect(try await Self.post(port, "/door/exit").0 == 202)
            #expect(await until { $0.queue.inside == 5 } != nil)
            let staff = try rig.kiosk.store.events().filter { ["countCorrected", "letIn"].contains($0.kind) }
            #expect(staff.map(\.kind) == ["countCorrected", "letIn"])

            // Staff pause the calls for ten minutes: the page and display say so, the next ticket scanned keeps its
            // place and is not let in; a pause of more than an hour, or without an end, is the manager's.
            for (body, says) in [
                (#"{"reason": "restock", "minutes": 61}"#, "a pause of 1–60 minutes"),
                (#"{"reason": "restock"}"#, "send {"), (#"{"reason": "", "minutes": 5}"#, "why the calls pause"),
            ] {
                let (status, answer) = try await Self.post(port, "/door/pause", body)
                #expect(status == 400 && answer.contains(says), "\(body): \(status) \(answer)")
            }
            #expect(try await Self.post(port, "/door/pause", #"{"reason": "restock", "minutes": 10}"#).0 == 202)
            let paused = try #require(await until { $0.queue.paused != nil })
            #expect(paused.queue.paused?.reason == "restock" && paused.queue.paused?.until != nil)
            let secondPNG = try #require(tickets[1].pngPath)
            let second = try #require(HIL.decodeQR(png: secondPNG).first)
            try scanner.scan(second)
            #expect(await until { $0.door?.last?.reason == "paused" } != nil)
            #expect(try await Self.post(port, "/door/resume").0 == 202)
            #expect(await until { $0.queue.paused == nil } != nil)
            let pauses = try rig.kiosk.store.events().filter { ["linePaused", "lineResumed"].contains($0.kind) }
            #expect(pauses.map(\.kind) == ["linePaused", "lineResumed"])

            // Shutting down ends the open stream instead of waiting for the page to go away.
            let stopping = Task { await rig.stop() }
            #expect(await stream.closed(within: .seconds(5)))
            await stopping.value
        } catch {
            await rig.stop()
            throw error
        }
    }

    /// A ticket printed by another kiosk of the store: forged until its key is trusted, then admitted —
    /// the running door reads the new key from disk without a restart.
    @Test func aTrustedKeyIsPickedUpWhileRunning() async throws {
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            let door = try #require(rig.kiosk.door)
            let config = rig.kiosk.config
            #expect(await rig.wait { door.status.state == "ready" } != nil)
            // The other kiosk's ticket reached this door's log through sync.
            let otherKiosk = TicketSigner()
            let now = WallClock.system.now()
            let ticket = Ticket(
                id: .v7(at: now),
                store: config.store.id,
                kind: .paper,
                code: TicketCode(prefix: "B", number: 7),
                issuedAt: now,
                issuer: "other"
            )
            func event(_ body: StoreEvent.Body) -> StoreEvent {
                StoreEvent(id: .v7(at: now), store: config.store.id, device: "other", time: now, body: body)
            }
            let issued = event(.ticketIssued(ticket))
            let taken = event(.ticketTaken(ticket.id))
            try rig.kiosk.store.append([issued, taken])
            rig.kiosk.queue.apply([issued, taken])
            let payload = TicketCodec.encode(ticket, signer: otherKiosk, prefix: config.store.statusURL)

            func scan() async throws -> String? {
                let before = door.status.admitted + door.status.refused
                try scanner.scan(payload)
                _ = await rig.wait { door.status.admitted + door.status.refused > before }
                return door.status.last?.reason
            }
            #expect(try await scan() == "forged")
            try rig.kiosk.store.trust(otherKiosk.publicKey, device: "other", at: now)
            try await Task.sleep(for: .milliseconds(1100))  // the ring is re-read at most once a second
            #expect(try await scan() == "admit")
            #expect(door.keyRing.count == 2)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
