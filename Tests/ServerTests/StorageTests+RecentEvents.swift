import Foundation
import KioskCore
import Synchronization
import Testing

@testable import CLupServer
@testable import Rigs

extension StorageTests {
    /// A kiosk's long-poll is answered from the events the replica applied (``RecentEvents``), equal to what
    /// the database holds (a late event's arrival, a newer version's field): the database is read for none of
    /// them, nor for a poll with nothing new; a replica started since holds none in memory, and reads them.
    @Test(arguments: Backend.available) func aKiosksLongPollIsAnsweredFromMemory(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let storage = try await open()
            let store = try await Self.register(in: storage)
            let one = try await StoreQueues(database: storage)
            var events = (0..<5).map { Self.customerExited(store, at: 1_800_000_000_000 + $0) }
            events[1].receivedAt = Timestamp(milliseconds: 1_800_000_090_000)
            events[3].newerFields = ["reason": .string("restock")]
            _ = try await one.append(events, store: store)

            let stored = try await storage.events(store: store, after: 0, limit: 100)
            #expect(stored.map(\.id) == events.map(\.id))
            let memory = try await one.events(store: store, after: 0, wait: .zero, limit: 100)
            #expect(memory == stored)
            #expect(try await one.events(store: store, after: 2, wait: .zero, limit: 2) == Array(stored[2..<4]))
            let last = try #require(stored.last?.sequence)
            #expect(try await one.events(store: store, after: last, wait: .zero, limit: 100).isEmpty)
            #expect(try await one.events(store: store, after: .max, wait: .zero, limit: 100).isEmpty)
            #expect(one.logPageReads.load(ordering: .relaxed) == 0, "no page of the log read from the database")

            // A long-poll waiting for the next event gets it when it is appended.
            let next = Self.customerExited(store, at: 1_800_000_000_010)
            async let woken = one.events(store: store, after: last, wait: .seconds(10), limit: 100)
            try await Task.sleep(for: .milliseconds(100))
            _ = try await one.append([next], store: store)
            let answer = try await woken
            #expect(answer.map(\.id) == [next.id] && answer.first?.sequence == last + 1)
            #expect(one.logPageReads.load(ordering: .relaxed) == 0)

            // A replica started now folded the log from the database and holds no event in memory yet.
            let two = try await StoreQueues(database: try await open())
            #expect(try await two.events(store: store, after: 0, wait: .zero, limit: 100) == stored + answer)
            #expect(two.logPageReads.load(ordering: .relaxed) == 1)
            #expect(try await two.events(store: store, after: last + 1, wait: .zero, limit: 100).isEmpty)
            #expect(two.logPageReads.load(ordering: .relaxed) == 1, "nothing new: not read")
        }
    }

    /// The ring itself: what it holds, from where, with a limit, after a gap, past its capacity, and a client's
    /// number as large as a number goes.
    @Test func recentEventsHoldTheLogsTailWithoutAGap() {
        let store = UUID()
        func event(_ sequence: Int64) -> StoreEvent {
            var event = Self.customerExited(store, at: 1_800_000_000_000 + sequence)
            event.sequence = sequence
            return event
        }
        let ring = RecentEvents(capacity: 4)
        #expect(ring.after(0, limit: 10) == nil, "empty: the database")
        for sequence: Int64 in 1...6 { ring.add(event(sequence)) }
        #expect(ring.after(1, limit: 10) == nil, "3 is the oldest held: 2 is read from the database")
        #expect(ring.after(2, limit: 10)?.map(\.sequence) == [3, 4, 5, 6])
        #expect(ring.after(4, limit: 10)?.map(\.sequence) == [5, 6])
        #expect(ring.after(2, limit: 1)?.map(\.sequence) == [3])
        #expect(ring.after(6, limit: 10) == [])
        #expect(ring.after(.max, limit: 10) == [])
        ring.add(event(8))
        #expect(ring.after(6, limit: 10) == nil, "after a gap the ring begins again")
        #expect(ring.after(7, limit: 10)?.map(\.sequence) == [8])
    }
}
