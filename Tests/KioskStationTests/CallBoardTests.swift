import Foundation
import KioskCore
import Logging
import ServiceSupport
@_spi(Seeding) import StationStore
import SyncWire
import Synchronization
import Testing

@testable import KioskStation

/// The call board calls out a ticket when it is called, and only then: not the tickets called before it first
/// looked, not a ticket that was called all along when someone ahead of it goes in (a store with many places
/// calls many tickets at once).
@Suite struct CallBoardTests {
    let storeID = UUID()

    @Test func onlyNewCallsAreCalledOut() throws {
        let board = try Board(store: storeID, capacity: 100, clock: .system)
        defer { board.remove() }
        let (queue, voice) = (board.queue, board.voice)

        let now = WallClock.system.now()
        func event(_ body: StoreEvent.Body) -> StoreEvent {
            StoreEvent(id: .v7(at: now), store: storeID, device: "printer", time: now, body: body)
        }
        // 80 taken tickets, all called (100 places): the first look only takes note.
        let tickets = (1...80).map { n in
            Ticket(
                id: .v7(at: now),
                store: storeID,
                kind: .paper,
                code: TicketCode(prefix: "A", number: n),
                issuedAt: now,
                issuer: "printer"
            )
        }
        queue.apply(tickets.flatMap { [event(.ticketIssued($0, told: nil)), event(.ticketTaken($0.id))] })
        board.look()
        #expect(board.recent.isEmpty && voice.next() == nil)
        // The first goes in: nobody new is called (all were), nothing is said.
        queue.apply([event(.ticketAdmitted(tickets[0].id, door: "door"))])
        board.look()
        #expect(board.recent.isEmpty && voice.next() == nil)
        // A new ticket is taken: called at once, and called out.
        let next = Ticket(
            id: .v7(at: now),
            store: storeID,
            kind: .paper,
            code: TicketCode(prefix: "A", number: 81),
            issuedAt: now,
            issuer: "printer"
        )
        queue.apply([event(.ticketIssued(next, told: nil)), event(.ticketTaken(next.id))])
        board.look()
        #expect(board.recent == [next.code])
        #expect(voice.next()?.announcement == .called(next.code))
    }

    /// The store's second call, as clup-server says it: a called ticket not seen at the door is called out again
    /// when its recall comes (the voice's own words), once, and the display lists it first again.
    @Test func aTicketNotSeenAtTheDoorIsCalledOutAgain() throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        let board = try Board(store: storeID, capacity: 2, clock: clock)
        defer { board.remove() }
        let (queue, voice, days) = (board.queue, board.voice, board.days)
        days.schedule.serverSays(settings: StoreSettings(callWindowMinutes: 10, recallMinutes: 2, recalls: 1))
        #expect(days.schedule.settings.recallMinutes.value == 2 && days.schedule.settings.recallMinutes.from == .server)

        board.look()
        let now = clock.now()
        let ticket = Ticket(
            id: .v7(at: now),
            store: storeID,
            kind: .paper,
            code: TicketCode(prefix: "A", number: 1),
            issuedAt: now,
            issuer: "printer"
        )
        queue.apply([
            StoreEvent(id: .v7(at: now), store: storeID, device: "printer", time: now, body: .ticketIssued(ticket)),
            StoreEvent(id: .v7(at: now), store: storeID, device: "printer", time: now, body: .ticketTaken(ticket.id)),
        ])
        board.look()
        #expect(voice.next()?.announcement == .called(ticket.code))
        offset.advance(by: .seconds(100))
        board.look()
        #expect(voice.next() == nil, "not before its recall")
        offset.advance(by: .seconds(21))
        board.look()
        #expect(voice.next()?.announcement == .calledAgain(ticket.code))
        #expect(board.recent == [ticket.code])
        #expect(Announcement.calledAgain(ticket.code).text(in: .english).contains("again"))
        offset.advance(by: .seconds(120))
        board.look()
        #expect(voice.next() == nil, "one recall, as the store set")
    }

    /// The replica's own feed, which the board looks on, wakes on a change of the queue, not on a status (the
    /// voice's, a printer's, sync's), while the station's pages follow both.
    @Test func theQueuesFeedWakesForTheQueueNotForAStatus() async throws {
        let dir = NSTemporaryDirectory() + "clup-calls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let changes = ChangeFeed()
        let queue = try QueueReplica(
            store: try LocalStore(path: "\(dir)/kioskd.sqlite"),
            capacity: 10,
            changes: changes
        )
        let wakes = Wakes()
        let watchers = [
            Task { [queue, wakes] in
                for await _ in queue.queueChanges.subscribe(heartbeat: .seconds(3600)) {
                    wakes.queue.add(1, ordering: .relaxed)
                }
            },
            Task { [changes, wakes] in
                for await _ in changes.subscribe(heartbeat: .seconds(3600)) { wakes.pages.add(1, ordering: .relaxed) }
            },
        ]
        defer { for watcher in watchers { watcher.cancel() } }
        func woken() -> [Int] { [wakes.queue.load(ordering: .relaxed), wakes.pages.load(ordering: .relaxed)] }
        func settled(_ expected: [Int]) async throws -> Bool {
            for _ in 0..<100 where woken() != expected { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(100))  // and nothing more comes
            return woken() == expected
        }
        #expect(try await settled([1, 1]), "each subscriber is woken once at first")
        changes.notify()  // a status changed
        #expect(try await settled([1, 2]), "a status wakes the pages alone: \(woken())")
        let now = WallClock.system.now()
        queue.apply([StoreEvent(id: .v7(at: now), store: storeID, device: "door", time: now, body: .customerExited)])
        #expect(try await settled([2, 3]), "the queue wakes both: \(woken())")
    }
}

/// A call board on a kiosk's own store in a folder of its own, with its voice writing to that folder.
private struct Board {
    let dir = NSTemporaryDirectory() + "clup-calls-\(UUID().uuidString.prefix(8))"
    let queue: QueueReplica
    let days: BusinessDayKeeper
    let voice: Voice
    let board: CallBoard

    init(store storeID: UUID, capacity: Int, clock: WallClock) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var config = KioskConfig(store: .init(id: storeID))
        config.store.capacity = capacity
        config.voice.enabled = true
        config.voice.output = .folder("\(dir)/voice")
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = try LocalStore(path: "\(dir)/kioskd.sqlite")
        let changes = ChangeFeed()
        queue = try QueueReplica(store: store, capacity: capacity, changes: changes)
        days = BusinessDayKeeper(config: config, store: store, queue: queue, clock: clock, logger: logger)
        voice = Voice(config: config.voice, logger: logger, changes: changes, metrics: StationMetrics())
        board = CallBoard(queue: queue, days: days, clock: clock, changes: changes, voice: voice)
    }

    func look() { board.look() }
    var recent: [TicketCode] { board.recent }
    func remove() { try? FileManager.default.removeItem(atPath: dir) }
}

/// How often each feed woke its watcher.
private final class Wakes: Sendable {
    let queue = Atomic(0)
    let pages = Atomic(0)
}
