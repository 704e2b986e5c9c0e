import Foundation
import Hummingbird
import KioskCore

/// `/v1/stores`: registration by the system manager; enrollment, listing and revocation of a store's kiosks
/// by its manager.
struct StoreRoutes {
    let database: ServerDatabase
    let logs: StoreLogs
    let auth: Authenticator

    struct Registration: Decodable {
        struct Manager: Decodable {
            var username: String
            var password: String
        }
        var store: StoreProfile
        var manager: Manager
    }

    struct Registered: ResponseEncodable {
        var id: StoreID
        var manager: String
    }

    struct Enrollment: Decodable {
        var device: DeviceID
    }

    struct Enrolled: ResponseEncodable {
        var store: StoreID
        var device: DeviceID
        /// Shown once: the kiosk's `[sync] credential`.
        var credential: String
    }

    struct Devices: ResponseEncodable {
        var devices: [EnrolledDevice]
    }

    /// Kiosks one store may have enrolled at once.
    static let maxDevices = 100

    /// A kiosk id: what shows in logs, metrics, pages and configuration files, so plain ASCII (a host name).
    static func isDeviceID(_ id: String) -> Bool {
        guard (1...64).contains(id.utf8.count), let first = id.unicodeScalars.first else { return false }
        func alphanumeric(_ c: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
        }
        return alphanumeric(first)
            && id.unicodeScalars.allSatisfy { alphanumeric($0) || "._-".unicodeScalars.contains($0) }
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/stores") { request, _ -> EditedResponse<Registered> in
            try auth.requireAdmin(request)
            let registration = try await request.decode(Registration.self)
            do throws(APIError) {
                try registration.store.validate()
            } catch {
                throw APIError(error.status, error.message, field: error.field.map { "store." + $0 })
            }
            let username = registration.manager.username
            guard (3...64).contains(username.count),
                username.allSatisfy({ $0.isLetter || $0.isNumber || "._-@".contains($0) })
            else { throw APIError.badRequest("3 to 64 letters, digits or . _ - @", field: "manager.username") }
            guard registration.manager.password.count >= 10 else {
                throw APIError.badRequest("at least 10 characters", field: "manager.password")
            }
            let record = try database.register(
                registration.store,
                manager: username,
                passwordHash: try PasswordHash(password: registration.manager.password),
                at: database.clock.now()
            )
            logs.add(record)
            return EditedResponse(status: .created, response: Registered(id: record.id, manager: username))
        }
        router.post("v1/stores/:store/devices") { request, context -> EditedResponse<Enrolled> in
            let store = try context.parameters.require("store", as: UUID.self)
            try auth.requireManager(request, of: store)
            guard logs.store(store) != nil else { throw APIError.notFound("store \(store)") }
            let enrollment = try await request.decode(Enrollment.self)
            guard Self.isDeviceID(enrollment.device), enrollment.device != StoreLogs.serverDevice else {
                throw APIError.badRequest(
                    "1 to 64 letters, digits, '.', '_' or '-' starting with a letter or digit (the kiosk's host "
                        + "name, say), not '\(StoreLogs.serverDevice)'",
                    field: "device"
                )
            }
            let enrolled = try database.devices(store: store)
            guard enrolled.count < Self.maxDevices || enrolled.contains(where: { $0.device == enrollment.device })
            else {
                throw APIError(
                    .conflict,
                    "this store has \(Self.maxDevices) kiosks — revoke one first",
                    field: "device"
                )
            }
            let credential = try database.enroll(device: enrollment.device, store: store, at: database.clock.now())
            return EditedResponse(
                status: .created,
                response: Enrolled(store: store, device: enrollment.device, credential: credential)
            )
        }
        router.get("v1/stores/:store/devices") { request, context -> Devices in
            let store = try context.parameters.require("store", as: UUID.self)
            try auth.requireManager(request, of: store)
            guard logs.store(store) != nil else { throw APIError.notFound("store \(store)") }
            return Devices(devices: try database.devices(store: store))
        }
        router.delete("v1/stores/:store/devices/:device") { request, context -> Response in
            let store = try context.parameters.require("store", as: UUID.self)
            let device = try context.parameters.require("device")
            try auth.requireManager(request, of: store)
            guard logs.store(store) != nil else { throw APIError.notFound("store \(store)") }
            guard try database.revoke(device: device, store: store) else {
                throw APIError.notFound("no kiosk '\(device.prefix(64))' is enrolled in this store")
            }
            return Response(status: .noContent)
        }
    }
}
