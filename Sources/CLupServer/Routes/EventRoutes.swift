import Foundation
import Hummingbird
import KioskCore
import SyncWire

/// The store event log for kiosks: idempotent batch append, a long-polled read from a sequence number (with
/// the key ring's digest), the store's key ring, and a device registering its own signing key.
struct EventRoutes {
    let auth: Authenticator
    let desk: KioskDesk

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/stores/:store/events") { request, context -> AppendedEvents in
            let store = try context.parameters.require("store", as: UUID.self)
            let kiosk = try await auth.requireDevice(request, store: store)
            let batch = try await request.decode(EventBatch.self, limit: 4 << 20)
            guard batch.events.count <= EventBatch.maxEvents else {
                throw Refusal.invalid("at most \(EventBatch.maxEvents) events per request", field: "events")
            }
            let appended = try await desk.take(batch.events, from: kiosk)
            return AppendedEvents(
                appended: appended.map { AppendedEvents.Event(id: $0.id, sequence: $0.sequence, new: $0.new) },
                last: desk.last(of: store)
            )
        }
        router.get("v1/stores/:store/events") { request, context -> EventPage in
            let store = try context.parameters.require("store", as: UUID.self)
            _ = try await auth.requireDevice(request, store: store)
            let after = try Self.query(request, "after", default: 0, in: 0...Int64.max)
            let wait = try Self.query(request, "wait", default: 0, in: 0...60)
            let limit = try Self.query(request, "limit", default: 1000, in: 1...5000)
            return try await desk.page(of: store, after: after, wait: .seconds(wait), limit: Int(limit))
        }
        router.get("v1/stores/:store/keys") { request, context -> KeyRingPage in
            let store = try context.parameters.require("store", as: UUID.self)
            _ = try await auth.requireDevice(request, store: store)
            return try await desk.keyRing(of: store)
        }
        router.put("v1/devices/self/key") { request, _ -> Response in
            let kiosk = try await auth.requireDevice(request)
            try await desk.register(try await request.decode(DeviceKey.self), from: kiosk)
            return Response(status: .noContent)
        }
    }

    static func query(
        _ request: Request,
        _ name: String,
        default value: Int64,
        in range: ClosedRange<Int64>
    ) throws(Refusal)
        -> Int64
    {
        guard let text = request.uri.queryParameters[name[...]] else { return value }
        guard let number = Int64(String(text)), range.contains(number) else {
            throw Refusal.invalid("must be a whole number in \(range.lowerBound)…\(range.upperBound)", field: name)
        }
        return number
    }
}
