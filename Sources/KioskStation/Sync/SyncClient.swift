import Crypto
import Drivers
import Foundation
import KioskCore
import Logging
import NIOSSL
import ServiceLifecycle
import ServiceSupport
import StationStore
import StrictTOML
import SyncWire
import Synchronization

/// Keeps the station's log in step with clup-server: pushes the outbox in order, pulls the store's log
/// from the last sequence read (long-poll), registers the station's signing key and caches the store's key
/// ring. Both directions retry with backoff (0.2 s doubling to 5 s, with jitter; every failed attempt is logged
/// with its cause) and never block printing or admitting:
/// those only write the local database, which this service reads.
public final class SyncClient: Service, Sendable {
    let config: KioskConfig
    /// What this client writes goes through it: the pulled pages, confirmations, refusals and the kept fold.
    let log: StationLog
    var store: LocalStore { log.store }
    var queue: QueueReplica { log.queue }
    let logger: Logger
    /// The server's address, ending with `/`.
    let base: String
    /// How the server's certificate is checked (`[sync] ca_file`, else the system's CA store).
    let tls: TLSConfiguration
    let onKeyRingChanged: @Sendable () -> Void
    /// How this kiosk is now, for the server (nil: no reports).
    let health: (@Sendable () -> KioskHealth)?
    /// The station's wall clock (contact times, when a key ring was adopted).
    let clock: WallClock
    /// Told the store's zone and hours from every page of the log.
    let schedule: StoreSchedule?
    /// Told the server's clock from every page of the log.
    let clockWatch: ClockWatch?
    private let published: Mutex<SyncStatus>
    /// Conflicts already logged, so each is logged once.
    private let reported = Mutex(0)
    /// Set when the log shows tickets of a device whose key this station lacks: fetch the ring now.
    private let keysWanted = Mutex(false)
    private let keysFeed = ChangeFeed()
    /// The digest of the key ring last fetched (pages of the log carry the server's).
    private let ringDigest = Mutex<String?>(nil)
    /// When the fold of the pulled log was last kept (``keepFold(through:)``).
    private let foldKept = Mutex<ContinuousClock.Instant?>(nil)
    /// The sync protocol this kiosk says it speaks (``SyncProtocol/current``; tests play an older kioskd).
    let syncProtocol: Int
    /// How often the fold of the pulled log is kept, so that a start folds at most this much of it.
    static let keepFoldEvery = Duration.seconds(15 * 60)

    public init(
        config: KioskConfig,
        store: LocalStore,
        queue: QueueReplica,
        logger: Logger,
        clock: WallClock = .system,
        schedule: StoreSchedule? = nil,
        clockWatch: ClockWatch? = nil,
        health: (@Sendable () -> KioskHealth)? = nil,
        syncProtocol: Int = SyncProtocol.current,
        onKeyRingChanged: @escaping @Sendable () -> Void = {}
    ) throws {
        self.syncProtocol = syncProtocol
        let base = config.sync.server.hasSuffix("/") ? config.sync.server : config.sync.server + "/"
        guard let url = URL(string: base), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw TOMLFileError(
                file: "kioskd.toml",
                key: "sync.server",
                "'\(config.sync.server)' is not an http:// or https:// URL"
            )
        }
        do {
            tls = try config.sync.tlsConfiguration()
        } catch {
            throw TOMLFileError(file: "kioskd.toml", key: "sync.ca_file", "\(error)")
        }
        self.config = config
        log = StationLog(store: store, queue: queue, config: config)
        self.logger = logger
        self.onKeyRingChanged = onKeyRingChanged
        self.health = health
        self.clock = clock
        self.schedule = schedule
        self.clockWatch = clockWatch
        self.base = base
        var status = SyncStatus(server: config.sync.server)
        status.quarantined = (try? store.quarantineCount()) ?? 0
        status.lastRefusal = (try? store.quarantined(limit: 1))?.first?.reason
        status.newerEvents = queue.snapshot.newerEvents
        self.published = Mutex(status)
    }

    public var status: SyncStatus { published.withLock { $0 } }

    func publish(_ change: (inout SyncStatus) -> Void) {
        let changed = published.withLock {
            let before = $0
            change(&$0)
            return $0 != before
        }
        if changed { queue.changes.notify() }
    }

    public func run() async throws {
        // The client lives exactly as long as the service runs (async-http-client wants an explicit shutdown).
        let client = SyncAPI.makeClient(tls: tls)
        let api = SyncAPI(
            base: base,
            store: config.store.id,
            credential: config.sync.credential,
            client: client,
            syncProtocol: syncProtocol
        )
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.pushLoop(api) }
            group.addTask { await self.pullLoop(api) }
            group.addTask { await self.keyLoop(api) }
            if let health = self.health { group.addTask { await self.healthLoop(api, health) } }
        }
        try? await client.shutdown()
        publish { $0.state = "stopped" }
    }

    /// How often the health report is checked for a change, and the longest time between two reports.
    static let healthCheck: Duration = .seconds(2)
    static let healthHeartbeat: Duration = .seconds(30)

    /// Reports the kiosk's health when it changes and at least every 30 s (the server flags a kiosk silent
    /// for over a minute), with what sync knows (the quarantine, newer events) and the kiosk's clock as sent.
    private func healthLoop(_ api: SyncAPI, _ health: @escaping @Sendable () -> KioskHealth) async {
        let last = Mutex<(report: KioskHealth, at: ContinuousClock.Instant)?>(nil)
        await repeatWithBackoff("health report") {
            var report = health()
            let sync = self.status
            report.quarantined = sync.quarantined
            report.newerEvents = sync.newerEvents
            let previous = last.withLock { $0 }
            if let previous, previous.report == report, ContinuousClock.now - previous.at < Self.healthHeartbeat {
                return Self.healthCheck
            }
            var sent = report
            sent.clock = self.clock.now().milliseconds
            try await api.reportHealth(sent)
            last.withLock { $0 = (report, ContinuousClock.now) }
            return Self.healthCheck
        }
    }

    /// The longest wait between two attempts while the server cannot be reached: short enough that a
    /// station is back in step seconds after an outage, long enough to be no load on a server that is down.
    static let maximumBackoff: Duration = .seconds(5)
    /// The first retry comes soon: one lost answer (a dropped connection, a NAT timeout) is the common failure,
    /// and a printed ticket has 10 s to reach the server. Doubling from here reaches the maximum in five tries.
    static let firstBackoff: Duration = .milliseconds(200)
    /// The wait after the server answered that this kioskd is too old to be served (426): it will not be until
    /// the box is updated or the server's policy changes, and asking every few seconds is load for nothing.
    static let upgradeRetry: Duration = .seconds(60)

    /// Runs `step` until shutdown; after a failure waits with backoff, after success as `step` says.
    private func repeatWithBackoff(_ name: String, _ step: @escaping @Sendable () async throws -> Duration) async {
        var backoff = Self.firstBackoff
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let pause: Duration
            do {
                // A long-poll or a wait for local changes ends at once on shutdown.
                pause = try await cancelWhenGracefulShutdown { try await step() }
                backoff = Self.firstBackoff
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }  // stopping, not failing
                let refusal = error as? SyncAPI.Failure
                let failure = refusal?.description ?? "\(error)"
                let tooOld = refusal?.upgradeRequired == true
                publish {
                    $0.state = "offline"
                    $0.error = failure
                    if tooOld { $0.upgradeRequired = failure }
                }
                // ±20 % jitter, so a store's kiosks do not all come back in the same second.
                pause = (tooOld ? Self.upgradeRetry : backoff) * Double.random(in: 0.8...1.2)
                if tooOld {
                    logger.error(
                        "sync: \(name) refused: this kioskd is too old for the server",
                        metadata: [
                            "error": "\(failure)", "retry_seconds": "\(pause.components.seconds)",
                        ]
                    )
                } else {
                    logger.warning("sync: \(name) failed, retrying in \(backoff)", metadata: ["error": "\(failure)"])
                }
                backoff = min(backoff * 2, Self.maximumBackoff)
            }
            if pause > .zero { try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) } }
        }
    }

    private func online() {
        publish {
            $0.state = "online"
            $0.error = nil
            $0.upgradeRequired = nil
            $0.lastContact = clock.now().milliseconds
        }
    }

    /// Pushes the outbox, oldest first, whenever the local log grows (and every few seconds regardless).
    private func pushLoop(_ api: SyncAPI) async {
        await repeatWithBackoff("push") { [self] in
            // Read before the outbox is: an append after this is pushed now or wakes the wait below.
            let seen = store.appends.load(ordering: .sequentiallyConsistent)
            while true {
                let batch = try store.outbox(limit: config.sync.batch)
                let count = (try? store.outboxCount()) ?? 0
                let oldest = batch.first?.time.milliseconds
                publish {
                    $0.outbox = count
                    $0.oldestUnconfirmed = oldest
                }
                guard !batch.isEmpty else { break }
                let answer: AppendedEvents
                do {
                    answer = try await api.push(batch)
                } catch let failure as SyncAPI.Failure {
                    guard let index = failure.refusedEvent, batch.indices.contains(index) else { throw failure }
                    try setAside(batch[index], failure)
                    continue
                }
                try log.confirm(answer.appended.map { ($0.id, $0.sequence) })
                online()
            }
            // Sleep until this station appends to the outbox, or 5 s pass.
            _ = await store.outboxGrew.wait(timeout: .seconds(5)) { [store] in
                store.appends.load(ordering: .sequentiallyConsistent) != seen
            }
            return .zero
        }
    }

    /// Moves an event the server refused for good out of the outbox (the rest flows on), and says so.
    private func setAside(_ event: StoreEvent, _ failure: SyncAPI.Failure) throws {
        guard try log.quarantine(event.id, reason: failure.description, at: clock.now()) else { return }
        let count = try store.quarantineCount()
        logger.error(
            "sync: the server refused an event for good; it is set aside and the outbox goes on",
            metadata: [
                "event": "\(event.kind) \(event.id)", "reason": "\(failure.description)", "quarantined": "\(count)",
            ]
        )
        publish {
            $0.quarantined = count
            $0.lastRefusal = failure.description
        }
    }

    /// Long-polls the store's log from the last sequence read and merges it into the replica.
    private func pullLoop(_ api: SyncAPI) async {
        await repeatWithBackoff("pull") { [self] in
            let after = try store.lastPulled()
            let page = try await api.pull(after: after, wait: config.sync.pullWaitSeconds, limit: 1000)
            if !page.events.isEmpty {
                let through = page.events.last?.sequence ?? after
                try log.storePulled(page.events, through: through)
                let dayStarted = page.events.contains(where: { $0.body.known == .dayStarted })
                try keepFold(through: through, dayStarted: dayStarted)
                reportConflicts()
                reportNewerEvents()
                try wantKeysOfNewIssuers(in: page.events)
            }
            if let time = page.serverTime { clockWatch?.serverSays(Timestamp(milliseconds: time)) }
            if let name = page.timeZone { schedule?.serverSays(zone: name) }
            if let hours = page.hours { schedule?.serverSays(hours: hours) }
            if let model = page.model { schedule?.serverSays(model: model) }
            if let settings = page.settings { schedule?.serverSays(settings: settings) }
            if let digest = page.keyRing, ringDigest.withLock({ $0 }) != digest {
                keysWanted.withLock { $0 = true }
                keysFeed.notify()
            }
            let lastSequence = page.events.last?.sequence ?? after
            publish { $0.lastSequence = lastSequence }
            online()
            return .zero
        }
    }

    /// Keeps the replica's fold of the pulled log (through `sequence`) every 15 minutes and after a day's
    /// start: the next start of kioskd folds only what was pulled after it, however long it has served.
    private func keepFold(through sequence: Int64, dayStarted: Bool) throws {
        let due = foldKept.withLock { kept in kept.map { ContinuousClock.now - $0 >= Self.keepFoldEvery } ?? true }
        guard due || dayStarted else { return }
        try log.keepConfirmedFold(through: sequence, capacity: config.store.capacity)
        foldKept.withLock { $0 = .now }
    }

    /// Registers this station's signing key once, and refreshes the store's key ring every 5 minutes, whenever
    /// the log names a ticket issuer whose key is missing, and whenever a page of the log carries a ring digest
    /// other than the last fetched (a kiosk enrolled, replaced or revoked).
    private func keyLoop(_ api: SyncAPI) async {
        await repeatWithBackoff("key ring") { [self] in
            let own = try store.signingKey()
            if !(try store.keyRegistered()) {
                try await api.registerKey(
                    DeviceKey(
                        device: config.device.id,
                        keyId: own.keyID.description,
                        publicKey: own.publicKey.rawRepresentation.base64EncodedString()
                    )
                )
                try store.setKeyRegistered()
                logger.notice("sync: signing key registered with the server", metadata: ["key": "\(own.keyID)"])
            }
            let answer = try await api.keys()
            let change = try store.adoptServerRing(answer.keys.ring, own: own.keyID, at: clock.now())
            for key in change.removed {
                logger.notice(
                    "sync: the server no longer vouches for a key (kiosk revoked or replaced): its tickets are refused",
                    metadata: ["device": "\(key.device)", "key": "\(key.keyID)"]
                )
            }
            if !change.added.isEmpty || !change.removed.isEmpty { onKeyRingChanged() }
            ringDigest.withLock { $0 = answer.digest }
            online()
            // Every 5 minutes, or as soon as the log shows a device whose key is missing here.
            _ = await keysFeed.wait(timeout: .seconds(300)) { [self] in keysWanted.withLock { $0 } }
            keysWanted.withLock { $0 = false }
            return .zero
        }
    }

    /// A door must verify a new kiosk's tickets offline: when its first ticket appears in the log, the key
    /// ring is fetched then, not at the next 5-minute refresh.
    private func wantKeysOfNewIssuers(in events: [StoreEvent]) throws {
        let issuers = Set(
            events.compactMap { event -> DeviceID? in
                if case .ticketIssued(let ticket, _) = event.body, ticket.issuer != config.device.id {
                    return ticket.issuer
                }
                return nil
            }
        )
        guard !issuers.isEmpty else { return }
        let known = Set(try store.trustedKeys().map(\.device))
        guard !issuers.isSubset(of: known) else { return }
        keysWanted.withLock { $0 = true }
        keysFeed.notify()
    }

    /// Logs events of types this version does not know, as more come, and puts their count on the status
    /// endpoint: the pull goes on, the kiosk says it wants an update.
    private func reportNewerEvents() {
        let count = queue.snapshot.newerEvents
        let before = status.newerEvents
        guard count != before else { return }
        if count > before {
            logger.warning(
                "events of a newer version of clup-server in the store's log: kept, changing nothing here — update kioskd (apt-get install clup-kiosk)",
                metadata: ["newer_events": "\(count)"]
            )
        }
        publish { $0.newerEvents = count }
    }

    /// Logs conflicts the merged log shows (each once) and puts them on the status endpoint.
    private func reportConflicts() {
        let conflicts = queue.snapshot.conflicts
        let new = reported.withLock { count -> ArraySlice<AdmissionConflict> in
            defer { count = conflicts.count }
            return conflicts.dropFirst(count)
        }
        for conflict in new {
            logger.warning(
                "ticket admitted twice",
                metadata: [
                    "code": "\(conflict.code)", "first_door": "\(conflict.firstDoor)",
                    "second_door": "\(conflict.secondDoor)",
                ]
            )
        }
        publish { $0.conflicts = conflicts }
    }
}
