import Foundation
import Hummingbird
import KioskCore
import SyncWire

/// `/v1/stores`: registration by the system manager; settings (capacity, hours, slots), the count inside (a
/// correction, people let in without a ticket) and the enrollment, listing and revocation of a store's kiosks by
/// its manager. The work is the ``StoreOffice``'s.
struct StoreRoutes {
    let office: StoreOffice
    let auth: Authenticator

    struct Devices: ResponseEncodable {
        var devices: [EnrolledDevice]
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/stores") { request, context -> EditedResponse<StoreOffice.Registered> in
            try await auth.requireAdmin(request, from: context.remoteAddress)
            let registration = try await request.decode(StoreOffice.Registration.self)
            return EditedResponse(status: .created, response: try await office.register(registration))
        }
        router.patch("v1/stores/:store") { request, context -> StoreProfile in
            let store = try context.parameters.require("store", as: UUID.self)
            try await auth.requireManager(request, from: context.remoteAddress, of: store)
            let settings = try await request.decode(StoreOffice.Settings.self, limit: 16 << 10)
            return try await office.update(store, settings)
        }
        router.post("v1/stores/:store/devices") { request, context -> EditedResponse<Enrolled> in
            let store = try context.parameters.require("store", as: UUID.self)
            try await auth.requireManager(request, from: context.remoteAddress, of: store)
            let enrollment = try await request.decode(Enrollment.self)
            return EditedResponse(
                status: .created,
                response: try await office.enroll(enrollment.device, role: enrollment.role ?? .both, store: store)
            )
        }
        router.get("v1/stores/:store/devices") { request, context -> Devices in
            let store = try context.parameters.require("store", as: UUID.self)
            try await auth.requireManager(request, from: context.remoteAddress, of: store)
            return Devices(devices: try await office.devices(store))
        }
        router.post("v1/stores/:store/count") { request, context -> StoreOffice.Count in
            let store = try context.parameters.require("store", as: UUID.self)
            let manager = try await auth.requireManager(request, from: context.remoteAddress, of: store)
            let correction = try await request.decode(StaffCount.CountRequest.self, limit: 1 << 10)
            return try await office.correctCount(store, to: correction.inside, by: manager)
        }
        router.post("v1/stores/:store/let-in") { request, context -> StoreOffice.Count in
            let store = try context.parameters.require("store", as: UUID.self)
            let manager = try await auth.requireManager(request, from: context.remoteAddress, of: store)
            let letIn = try await request.decode(StaffCount.LetInRequest.self, limit: 2 << 10)
            return try await office.letIn(store, people: letIn.people, reason: letIn.reason, by: manager)
        }
        router.post("v1/stores/:store/pause") { request, context -> StoreOffice.Calls in
            let store = try context.parameters.require("store", as: UUID.self)
            let manager = try await auth.requireManager(request, from: context.remoteAddress, of: store)
            let pause = try await request.decode(LinePause.PauseRequest.self, limit: 2 << 10)
            return try await office.pause(store, reason: pause.reason, minutes: pause.minutes, by: manager)
        }
        router.post("v1/stores/:store/resume") { request, context -> StoreOffice.Calls in
            let store = try context.parameters.require("store", as: UUID.self)
            let manager = try await auth.requireManager(request, from: context.remoteAddress, of: store)
            return try await office.resume(store, by: manager)
        }
        router.delete("v1/stores/:store/devices/:device") { request, context -> Response in
            let store = try context.parameters.require("store", as: UUID.self)
            let device = try context.parameters.require("device")
            try await auth.requireManager(request, from: context.remoteAddress, of: store)
            try await office.revoke(device, store: store)
            return Response(status: .noContent)
        }
    }
}
