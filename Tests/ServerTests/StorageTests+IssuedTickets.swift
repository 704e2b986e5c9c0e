import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import Rigs

extension StorageTests {
    /// A ticket id belongs to the store that issued it, kiosk or server: another store's append that issues it
    /// is refused whole, naming the event; its own store may append its issue again under a new event id (the
    /// claim stands), and a claim goes with its events at retention.
    @Test(arguments: Backend.available) func aTicketIDBelongsToOneStore(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let storage = try await open()
            let store = try await Self.register(in: storage)
            let other = try await Self.registerOther(in: storage)
            let at = Timestamp(milliseconds: 10_000)
            let paper = Self.issued(.v7(at: at), store: store, at: at)
            _ = try await storage.append([paper], store: store) { _ in }

            let forged = [Self.customerExited(other, at: 11_000), Self.issued(paper.ticketID!, store: other, at: at)]
            await #expect(throws: StorageRefusal.ticketOfAnotherStore(paper.ticketID!, index: 1)) {
                try await storage.append(forged, store: other) { _ in }
            }
            #expect(try await storage.events(store: other, after: 0).isEmpty)

            let again = Self.issued(paper.ticketID!, store: store, at: at)
            #expect(try await storage.append([again], store: store) { _ in }.map(\.new) == [true])

            let record = try #require(try await storage.stores().first { $0.id == store })
            let app = try await storage.issue(
                IssueOrder(Self.issue(.app, of: record, at: at), holder: nil, check: nil),
                onCommit: { _ in }
            )
            await #expect(throws: StorageRefusal.ticketOfAnotherStore(app.ticket.id, index: 0)) {
                try await storage.append([Self.issued(app.ticket.id, store: other, at: at)], store: other) { _ in }
            }

            _ = try await storage.removeEvents(store: store, before: Timestamp(milliseconds: 20_000), through: .max)
            let reused = try await storage.append([Self.issued(paper.ticketID!, store: other, at: at)], store: other) {
                _ in
            }
            #expect(reused.map(\.new) == [true])
        }
    }

    /// Two stores' kiosks issuing one ticket id at the same moment, through two replicas: the claim's key lets
    /// exactly one of them write it, every round.
    @Test(arguments: Backend.available) func twoStoresIssuingOneIDAtOnceGetOneClaim(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let replicas: [any ServerStorage] = [try await open(), try await open()]
            let stores = [try await Self.register(in: replicas[0]), try await Self.registerOther(in: replicas[0])]
            for round in 0..<20 {
                let at = Timestamp(milliseconds: 10_000 + Int64(round))
                let ticket = TicketID.v7(at: at)
                let written = await withTaskGroup(of: Bool.self) { tasks in
                    for side in 0..<2 {
                        tasks.addTask {
                            let event = Self.issued(ticket, store: stores[side], at: at)
                            return (try? await replicas[side].append([event], store: stores[side]) { _ in }) != nil
                        }
                    }
                    return await tasks.reduce(into: 0) { $0 += $1 ? 1 : 0 }
                }
                var naming = 0
                for store in stores {
                    naming += try await replicas[0].events(store: store, after: 0, limit: .max)
                        .count { $0.ticketID == ticket }
                }
                #expect(written == 1 && naming == 1, "round \(round): \(written) appends, \(naming) logs")
            }
        }
    }

    /// A kiosk's `ticketIssued` of a paper ticket under `id`.
    static func issued(_ id: TicketID, store: StoreID, at: Timestamp) -> StoreEvent {
        let ticket = Ticket(
            id: id,
            store: store,
            kind: .paper,
            code: TicketCode(prefix: "A", number: 1),
            issuedAt: at,
            issuer: "door-1"
        )
        return StoreEvent.new(.ticketIssued(ticket), store: store, device: "door-1", at: at)
    }

    /// A second store, "Other Market" of manager bruno; its id.
    static func registerOther(in storage: any ServerStorage) async throws -> StoreID {
        try await storage.register(
            profile("Other Market"),
            manager: "bruno",
            passwordHash: try PasswordHash(password: "correct horse battery"),
            at: Timestamp(milliseconds: 1_000)
        ).id
    }
}
