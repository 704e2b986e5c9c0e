import Foundation
import Hummingbird
import KioskCore
import Logging
import NIOCore
import ServiceLifecycle
import ServiceSupport
import StationStore

/// What `GET /status` answers and what `GET /events` streams.
public struct StationStatus: Codable, Sendable, ResponseEncodable {
    public struct Queue: Codable, Sendable {
        public var waiting: Int
        public var inside: Int
        public var capacity: Int
        /// Codes of the waiting tickets, first in line first (at most 20).
        public var next: [String]
        /// Codes called to the door now (the window display's "now serving").
        public var called: [String]
        /// The last five codes called today, newest first, whether or not they are still called (the window
        /// display's "last called", for whoever missed a call).
        public var recentlyCalled: [String]
        /// Minutes a customer taking a ticket now would wait (what a ticket printed now says), and the range
        /// it falls in four times out of five.
        public var estimatedWaitMinutes: Int
        public var estimatedWaitLowMinutes: Int
        public var estimatedWaitHighMinutes: Int
        /// Events written here that the server's log has not sent back yet: folded on top of the server's
        /// order. Small while sync works (the outbox and one pull); it grows only while the server is away.
        public var pendingEvents: Int
        /// Whether the store is open now: nobody is called or admitted while it is closed.
        public var open: Bool
        /// While closed: when it opens, on the store's clock (`07:00`, or `Monday 07:00` more than a day ahead).
        public var opensAt: String?
        /// While closed: when tickets are handed out from, the same way (absent: now).
        public var ticketsFrom: String?
        /// Whether an exit would be counted now: someone is inside (or, before opening, still was at closing).
        public var exitCounts: Bool
        /// While closed: "Closed — the store opens at 07:00" (and from when tickets are handed out).
        public var notice: String?
        /// The day's latest count by staff (absent: none today, or a kiosk before staff counts).
        public var counted: Counted?
        /// While staff paused the calls: why, who, and until when on the store's clock (absent: until resumed).
        public var paused: Paused?
    }

    /// A pause of the calls that holds now (``LinePause``).
    public struct Paused: Codable, Sendable {
        public var reason: String
        public var by: String
        public var until: String?
    }

    /// How many staff counted inside, when (the store's clock, `10:02`), and who (a manager, or a door).
    public struct Counted: Codable, Sendable {
        public var inside: Int
        public var at: String
        public var by: String
    }

    public var store: String
    public var device: String
    public var printer: PrinterStationStatus?
    public var door: DoorStationStatus?
    public var sync: SyncStatus?
    public var voice: VoiceStatus?
    /// Whether the box's clock is believed (absent from kiosks before the clock check).
    public var clock: ClockWatch.Status?
    /// The database the card damaged, found at this start and set aside (absent: none).
    public var databaseDamage: StoreDamage?
    /// The store's settings in use and where each came from (absent from kiosks before store settings).
    public var settings: EffectiveSettings?
    public var queue: Queue
}

/// The station's local HTTP endpoint: status as JSON, live updates, the manager page and the control API.
///
///     GET  /               the manager page: last door decision, occupancy, exit button (live)
///     GET  /display        the now-serving display for the store window (live)
///     GET  /metrics        Prometheus metrics
///     GET  /status         printer state, paper, last ticket, door decision, queue
///     GET  /events         the same status as server-sent events, on every change
///     POST /printer/take   the waiting ticket was taken (demo, tests, a button wired to a GPIO)
///     POST /door/exit      someone left the store (the manager's exit button)
///     POST /door/count, /door/let-in   staff's count, people let in without a ticket (StationHTTP+Staff)
///     POST /door/pause, /door/resume   staff pause the calls for up to an hour, and resume them
///     GET  /healthz        200 while the service runs
///     GET  /session, POST /login, /logout   the manager page's login (``addManagerLogin(to:sessions:)``)
///
/// POSTs from another site's page in a browser are refused (``SameOriginOnly``); from another device, they
/// need a manager's login (``ManagersOnly``).
public enum StationHTTP {
    public static func router(
        config: KioskConfig,
        printer: PrinterStation?,
        door: DoorStation?,
        sync: SyncClient?,
        voice: Voice? = nil,
        calls: CallBoard? = nil,
        queue: QueueReplica,
        changes: ChangeFeed,
        metrics: StationMetrics,
        schedule: StoreSchedule,
        clockWatch: ClockWatch? = nil,
        damage: StoreDamage? = nil,
        clock: WallClock = .system
    ) -> Router<PageContext> {
        let router = Router(context: PageContext.self)
        let sessions = ManagerSessions(password: config.http.managerPassword)
        router.middlewares.add(SameOriginOnly(hosts: config.http.allowedHosts))
        router.middlewares.add(ManagersOnly(sessions: sessions))
        addManagerLogin(to: router, sessions: sessions)
        @Sendable func status() -> StationStatus {
            let state = queue.snapshot
            let now = clock.now()
            let ahead = state.lineLength(at: now)
            let estimate = schedule.estimator.wait(position: ahead, in: state, at: now)
            let calendar = schedule.calendar
            var opensAt: String?
            var ticketsFrom: String?
            if !state.isOpen(at: now) {
                // When the line is called (the day's hours in the log), and when tickets are handed out.
                let phase = calendar.phase(at: now)
                if case .closed(_, let opens, let from) = phase {
                    opensAt = calendar.text(of: state.opensAt(after: now) ?? opens, from: now)
                    ticketsFrom = from > now ? calendar.text(of: from, from: now) : nil
                } else if let opens = state.opensAt(after: now) {
                    opensAt = calendar.text(of: opens, from: now)
                }
            }
            let clockStatus = clockWatch?.status
            let wrongClock = clockStatus?.problem.map { "Waiting for the right time: \($0)" }
            let counted = state.correction.map { correction in
                StationStatus.Counted(
                    inside: correction.inside,
                    at: calendar.zone.clockText(correction.at),
                    by: correction.by
                )
            }
            return StationStatus(
                store: schedule.storeName,
                device: config.device.id,
                printer: printer?.status,
                door: door?.status,
                sync: sync?.status,
                voice: voice?.status,
                clock: clockStatus,
                databaseDamage: damage,
                settings: schedule.settings,
                queue: .init(
                    waiting: state.waitingCount,
                    inside: state.inside,
                    capacity: state.capacity,
                    next: state.waiting(first: 20).map(\.code.description),
                    called: state.called(at: now, first: 20).map(\.code.description),
                    recentlyCalled: calls?.recent.map(\.description) ?? [],
                    estimatedWaitMinutes: estimate.point.minutesRoundedUp,
                    estimatedWaitLowMinutes: estimate.low.minutesRoundedUp,
                    estimatedWaitHighMinutes: estimate.high.minutesRoundedUp,
                    pendingEvents: queue.pendingCount,
                    open: state.isOpen(at: now),
                    opensAt: opensAt,
                    ticketsFrom: ticketsFrom,
                    exitCounts: state.countsExit(at: now),
                    notice: wrongClock ?? damage?.sentence
                        ?? opensAt.map { opens in
                            ticketsFrom.map { "Closed — tickets from \($0), the store opens at \(opens)" }
                                ?? "Closed — the store opens at \(opens)"
                        },
                    counted: counted,
                    paused: state.pauses.holding(at: now).map { pause in
                        StationStatus.Paused(
                            reason: pause.reason,
                            by: pause.by,
                            until: pause.end.map { calendar.zone.clockText($0) }
                        )
                    }
                )
            )
        }
        router.get("/") { _, _ in html(ManagerPage.html) }
        router.get("display") { _, _ in html(DisplayPage.html) }
        router.get("status") { _, _ in status() }
        router.get("metrics") { _, _ -> Response in
            metrics.update(from: status(), now: clock.now().milliseconds)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.exposition()))
            )
        }
        router.get("events") { _, _ in events(changes: changes, status: status) }
        router.post("printer/take") { _, _ -> Response in
            guard let printer else { return json(.notFound, error: "the printer role is not enabled here") }
            printer.requestTake()
            return json(.accepted, ["ok": true])
        }
        router.post("door/exit") { _, _ -> Response in
            guard let door else { return json(.notFound, error: "the door role is not enabled here") }
            do {
                guard try door.customerExited() else {
                    return json(.conflict, error: "nobody is inside: occupancy is already zero")
                }
            } catch {
                return json(.internalServerError, error: "could not record the exit (\(error)) — see the kioskd log")
            }
            return json(.accepted, ["ok": true])
        }
        addStaffRoutes(to: router, door: door)
        router.get("healthz") { _, _ in "ok" }
        return router
    }

    /// Server-sent events: the whole status as one `status` event now and after every change (and as a
    /// heartbeat). Ends when the client goes or the service shuts down.
    static func events(changes: ChangeFeed, status: @escaping @Sendable () -> StationStatus) -> Response {
        let updates = changes.subscribe()
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                let encoder = JSONEncoder()
                for await _ in updates.cancelOnGracefulShutdown() {
                    let data = try encoder.encode(status())
                    var buffer = ByteBuffer(string: "event: status\ndata: ")
                    buffer.writeBytes(data)
                    buffer.writeString("\n\n")
                    try await writer.write(buffer)
                }
                try await writer.finish(nil)
            }
        )
    }

    static func html(_ page: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: page))
        )
    }

    static func json(_ status: HTTPResponse.Status, error message: String) -> Response {
        json(status, ["error": message])
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: any Sendable]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
