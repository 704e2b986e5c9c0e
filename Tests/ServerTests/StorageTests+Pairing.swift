import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import Rigs

extension StorageTests {
    /// Pairings on both backends: found by user code and by device code's hash, counted live per address, changed
    /// only from the state they were read in — of two replicas delivering one approval, one wins — and gone
    /// once ended when the next is added.
    @Test(arguments: Backend.available) func pairingsChangeOnlyFromTheStateTheyWereReadIn(
        _ backend: Backend
    )
        async throws
    {
        try await Self.withDatabase(backend) { open in
            let one = try await open()
            let two = try await open()
            let now = Timestamp(milliseconds: 1_800_000_000_000)
            let pairing = Pairing.new(
                deviceCode: "box-1",
                device: "entrance",
                role: .door,
                address: "192.0.2.1",
                at: now
            )
            try await one.addPairing(pairing, at: now)
            var taken = Pairing.new(deviceCode: "box-2", device: "other", role: nil, address: "192.0.2.2", at: now)
            taken.userCode = pairing.userCode
            await #expect(throws: (any Error).self, "a live code is unique") {
                try await two.addPairing(taken, at: now)
            }
            #expect(try await two.pairing(userCode: pairing.userCode) == pairing)
            #expect(try await two.pairing(deviceCodeHash: Secrets.hash("box-1")) == pairing)
            #expect(try await two.pairing(deviceCodeHash: Secrets.hash("box-2")) == nil)
            let counts = try await one.pairingCounts(address: "192.0.2.1", at: now)
            #expect(counts.all == 1 && counts.fromAddress == 1)

            let approved = pairing.decided(store: StoreID(), role: .door, by: "giulia")
            #expect(try await one.replacePairing(approved, whileIn: .pending))
            #expect(
                try await two.replacePairing(pairing.decided(store: nil, role: .both, by: "marco"), whileIn: .pending)
                    == false
            )
            let (delivered, _) = approved.polled(at: now + .seconds(10))
            let raced = await withTaskGroup(of: Bool.self) { group in
                for storage in [one, two] {
                    group.addTask { (try? await storage.replacePairing(delivered, whileIn: .approved)) ?? false }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(raced == 1, "one replica delivers")
            #expect(try await one.pairing(userCode: pairing.userCode)?.state == .delivered)

            let later = now + .seconds(601)
            #expect(try await two.pairingCounts(address: "192.0.2.1", at: later).all == 0)
            let next = Pairing.new(deviceCode: "box-3", device: "entrance", role: nil, address: "192.0.2.1", at: later)
            try await two.addPairing(next, at: later)
            #expect(try await one.pairing(deviceCodeHash: Secrets.hash("box-1")) == nil, "ended pairings are removed")
        }
    }
}
