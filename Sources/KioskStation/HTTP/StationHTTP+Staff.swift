import Foundation
import Hummingbird
import KioskCore

/// The door's staff controls (``DoorStation/correctCount(to:at:)``, ``DoorStation/letIn(people:reason:at:)``,
/// ``DoorStation/pauseCalls(reason:minutes:at:)``, ``DoorStation/resumeCalls(at:)``):
///
///     POST /door/count    {"inside": 17}                        staff counted the people inside
///     POST /door/let-in   {"people": 2, "reason": "a carer"}    staff let people in without a ticket
///     POST /door/pause    {"reason": "restock", "minutes": 10}  staff pause the calls (1–60 minutes)
///     POST /door/resume                                          staff resume them
///
/// Like the exit button, from another device than the box only for a logged-in manager (``ManagersOnly``).
extension StationHTTP {
    static func addStaffRoutes(to router: Router<PageContext>, door: DoorStation?) {
        router.post("door/count") { request, _ -> Response in
            guard let door else { return json(.notFound, error: "the door role is not enabled here") }
            guard let body = await decoded(StaffCount.CountRequest.self, request) else {
                return json(.badRequest, error: #"send {"inside": N}: the people you counted inside"#)
            }
            return staff { try door.correctCount(to: body.inside) }
        }
        router.post("door/let-in") { request, _ -> Response in
            guard let door else { return json(.notFound, error: "the door role is not enabled here") }
            guard let body = await decoded(StaffCount.LetInRequest.self, request) else {
                return json(.badRequest, error: #"send {"people": N, "reason": "…"}: who you let in, and why"#)
            }
            return staff { try door.letIn(people: body.people, reason: body.reason) }
        }
        router.post("door/pause") { request, _ -> Response in
            guard let door else { return json(.notFound, error: "the door role is not enabled here") }
            guard let body = await decoded(LinePause.PauseRequest.self, request), let minutes = body.minutes else {
                return json(.badRequest, error: #"send {"reason": "…", "minutes": 1–60}: why, and for how long"#)
            }
            return staff { try door.pauseCalls(reason: body.reason, minutes: minutes) }
        }
        router.post("door/resume") { _, _ -> Response in
            guard let door else { return json(.notFound, error: "the door role is not enabled here") }
            return staff { try door.resumeCalls() }
        }
    }

    /// A small JSON body (at most `limit` bytes: the staff's forms 2 KiB), or nil when it is larger or not that
    /// shape — the manager page's POSTs' one reading.
    static func decoded<Body: Decodable>(_ type: Body.Type, _ request: Request, limit: Int = 2 << 10) async -> Body? {
        guard let buffer = try? await request.body.collect(upTo: limit) else { return nil }
        return try? JSONDecoder().decode(Body.self, from: Data(buffer: buffer))
    }

    private static func staff(_ record: () throws -> Void) -> Response {
        do {
            try record()
        } catch let problem as DoorStation.StaffProblem {
            return json(.badRequest, error: problem.description)
        } catch {
            return json(.internalServerError, error: "could not record it (\(error)) — see the kioskd log")
        }
        return json(.accepted, ["ok": true])
    }
}
