import Foundation
import KioskCore
import Testing

@testable import CLupServer
@testable import Rigs

extension StorageTests {
    /// Web Push subscriptions: one per ticket (a new one replaces it, notices sent included), every replica reads
    /// what another wrote, and one forgotten is gone for all.
    @Test(arguments: Backend.available) func aTicketsPushSubscriptionIsKeptForEveryReplica(
        _ backend: Backend
    )
        async throws
    {
        try await Self.withDatabase(backend) { open in
            let replicas: [any ServerStorage] = [try await open(), try await open()]
            let store = try await Self.register(in: replicas[0])
            let tickets = [TicketID.v7(at: Timestamp(milliseconds: 1)), TicketID.v7(at: Timestamp(milliseconds: 2))]
            var first = PushSubscription(
                ticket: tickets[0],
                store: store,
                endpoint: "https://fcm.googleapis.com/fcm/send/one",
                p256dh: Data([4] + [UInt8](repeating: 7, count: 64)),
                auth: Data(repeating: 9, count: 16),
                journeyMinutes: 12,
                language: "it",
                page: "/T/ABC",
                sent: [],
                createdAt: 5
            )
            try await replicas[0].savePush(first)
            var second = first
            second.ticket = tickets[1]
            second.journeyMinutes = nil
            try await replicas[1].savePush(second)
            first.sent = ["leave", "called-1"]
            try await replicas[1].savePush(first)
            let read = try await replicas[0].pushSubscriptions()
            #expect(Set(read.map(\.ticket)) == Set(tickets))
            #expect(read.first { $0.ticket == tickets[0] } == first, "replaced, notices sent kept")
            #expect(read.first { $0.ticket == tickets[1] } == second)
            #expect(try await replicas[0].removePush(ticket: tickets[0]))
            #expect(try await replicas[1].removePush(ticket: tickets[0]) == false)
            #expect(try await replicas[1].pushSubscriptions() == [second])
        }
    }
}
