import Foundation
import Hummingbird
import KioskCore
import Logging
import NIOCore
import Synchronization

/// What `GET /status` answers.
public struct StationStatus: Codable, Sendable, ResponseEncodable {
    public struct Queue: Codable, Sendable {
        public var waiting: Int
        public var inside: Int
        public var capacity: Int
        /// Codes of the waiting tickets, first in line first (at most 20).
        public var next: [String]
    }

    public var store: String
    public var device: String
    public var printer: PrinterStationStatus?
    public var door: DoorStationStatus?
    public var queue: Queue
}

/// The station's local HTTP endpoint: status as JSON and the control API.
///
///     GET  /status         printer state, paper, last ticket, queue length
///     POST /printer/take   the waiting ticket was taken (demo, tests, a button wired to a GPIO)
///     POST /door/exit      someone left the store (the manager's exit button)
///     GET  /healthz        200 while the service runs
public enum StationHTTP {
    public static func router(
        config: KioskConfig,
        printer: PrinterStation?,
        door: DoorStation?,
        queue: QueueReplica
    ) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("status") { _, _ -> StationStatus in
            let state = queue.snapshot
            let line = state.waiting
            return StationStatus(
                store: config.store.name,
                device: config.device.id,
                printer: printer?.status,
                door: door?.status,
                queue: .init(
                    waiting: line.count,
                    inside: state.inside,
                    capacity: state.capacity,
                    next: line.prefix(20).map(\.code.description)
                )
            )
        }
        router.post("printer/take") { _, _ -> Response in
            guard let printer else { return json(.notFound, #"{"error":"the printer role is not enabled here"}"#) }
            printer.requestTake()
            return json(.accepted, #"{"ok":true}"#)
        }
        router.post("door/exit") { _, _ -> Response in
            guard let door else { return json(.notFound, #"{"error":"the door role is not enabled here"}"#) }
            do {
                try door.customerExited()
            } catch {
                return json(.internalServerError, #"{"error":"could not record the exit"}"#)
            }
            return json(.accepted, #"{"ok":true}"#)
        }
        router.get("healthz") { _, _ in "ok" }
        return router
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }
}
