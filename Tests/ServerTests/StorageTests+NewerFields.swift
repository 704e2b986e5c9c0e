import Foundation
import KioskCore
import Testing

@testable import CLupServer
@testable import Rigs

extension StorageTests {
    /// A newer replica's event of a known type with a field this version does not read: both backends keep the
    /// field as it came, and give it back to a reader and to another replica.
    @Test(arguments: Backend.available) func fieldsOfANewerVersionAreKept(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let one = try await open()
            let two = try await open()
            let now = Timestamp(milliseconds: 1_800_000_000_000)
            let store = try await Self.register(in: one)
            var event = StoreEvent.new(.capacityChanged(7), store: store, device: "server", at: now)
            event.newerFields = ["reason": .string("restock"), "by": .object(["staff": .string("ana")])]
            _ = try await one.append([event], store: store, onCommit: { _ in })
            for storage in [one, two] {
                let read = try await storage.events(store: store, after: 0, limit: 10).first { $0.id == event.id }
                #expect(
                    read?.body == .capacityChanged(7) && read?.newerFields == event.newerFields,
                    "\(String(describing: read))"
                )
            }
        }
    }
}
