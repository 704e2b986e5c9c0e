import Foundation
import KioskCore
import Logging
import ServiceSupport
import StationStore
import SyncWire
import Synchronization

/// The store's clock, hours and wait model as this kiosk knows them (``StoreCalendar``, ``WaitEstimator``).
///
/// The time zone: `[store] time_zone` when the configuration names one, else the zone clup-server gives the
/// store, else UTC until the server has said — never the box's own setting (a box's clock zone is whatever its
/// image shipped with). The weekly hours: clup-server's, where the store's manager sets them, else the
/// configuration's (a kiosk that never synced). The wait model: the one clup-server learnt from the store's log
/// (so the printed ticket tells what the app tells), else the configured average visit. What the server says
/// arrives with every page of the log and is kept in the state directory, so a kiosk that starts offline still
/// has it. The store's settings (``StoreSettings``: its languages, the call window, the expected visit, large
/// print, the voice's volume, the footer) are the server's once it has said — the store decides them once, in
/// the console — else the configuration's (`[voice] languages`, `[door] call_window_minutes`, `[store]
/// average_visit_minutes`, `[printer] large_print`, `[voice] volume`, `[printer] footer`); ``settings`` says
/// which.
public final class StoreSchedule: Sendable {
    private let configured: Configured
    private struct Configured: Sendable {
        var name: String
        var zone: StoreTimeZone?
        var hours: StoreHours
        var languages: [SpokenLanguage]
        var callWindow: Int
        var averageVisitMinutes: Int
        var largePrint: Bool
        var voiceVolume: Int
        var footer: String
    }
    private let store: LocalStore
    private let logger: Logger
    private let fromServer: Mutex<(zone: StoreTimeZone?, hours: StoreHours?, settings: StoreSettings?)>
    /// The wait estimate of the model in use.
    private let waits: Mutex<WaitEstimator>

    public init(configured: KioskConfig, store: LocalStore, logger: Logger) {
        self.configured = Configured(
            name: configured.store.name,
            zone: configured.store.timeZone,
            hours: configured.store.hours,
            languages: configured.voice.languages,
            callWindow: configured.door.callWindowMinutes,
            averageVisitMinutes: Int(configured.store.averageVisit.components.seconds / 60),
            largePrint: configured.printer.largePrint,
            voiceVolume: configured.voice.volume,
            footer: configured.printer.footer
        )
        self.store = store
        self.logger = logger
        let zone = (try? store.serverTimeZone()).flatMap { try? TimeZoneDirectory.system.zone(named: $0) }
        let hours = (try? store.serverHours()).flatMap {
            try? JSONDecoder().decode(StoreHours.self, from: Data($0.utf8))
        }
        let settings = (try? store.serverSettings()).flatMap {
            try? JSONDecoder().decode(StoreSettings.self, from: Data($0.utf8))
        }
        fromServer = Mutex((zone, hours, settings))
        let model = (try? store.serverWaitModel()).flatMap {
            try? JSONDecoder().decode(WaitModel.self, from: Data($0.utf8))
        }
        let window = Self.usable(settings).callWindow ?? configured.door.callWindowMinutes
        let visit =
            Self.usable(settings).averageVisit.map { Duration.seconds($0 * 60) } ?? configured.store.averageVisit
        waits = Mutex(
            WaitEstimator(model: model ?? .prior(averageVisit: visit), callWindow: .seconds(window * 60))
        )
        if configured.store.timeZone == nil && zone == nil {
            logger.warning(
                "the store's time zone is not known yet: counting days in UTC until clup-server says",
                metadata: ["action": "set [store] time_zone, e.g. \"Europe/Rome\", or let the kiosk sync once"]
            )
        }
    }

    /// The zone business days, ticket numbers and printed times follow.
    public var zone: StoreTimeZone { configured.zone ?? fromServer.withLock { $0.zone } ?? .utc }

    /// The weekly hours the kiosk follows: the server's once it has said, else the configuration's.
    public var hours: StoreHours { fromServer.withLock { $0.hours } ?? configured.hours }

    /// The store's hours on its clock.
    public var calendar: StoreCalendar { StoreCalendar(hours: hours, zone: zone) }

    /// The languages of the paper, the display and the voice, the main one first: the store's, else
    /// `[voice] languages`.
    public var languages: [SpokenLanguage] {
        Self.usable(fromServer.withLock { $0.settings }).languages ?? configured.languages
    }

    /// How long a called ticket may go unused: the store's, else `[door] call_window_minutes`.
    public var callWindow: Duration { .seconds(settings.callWindowMinutes.value * 60) }

    /// The store's name: clup-server's, else `[store] name`.
    public var storeName: String { settings.name.value }
    /// Large print on the tickets: the store's, else `[printer] large_print`.
    public var largePrint: Bool { settings.largePrint.value }
    /// The voice's volume in percent: the store's, else `[voice] volume`.
    public var voiceVolume: Int { settings.voiceVolume.value }
    /// The line under each ticket and on the window display: the store's, else `[printer] footer`.
    public var footer: String { settings.footer.value }

    /// The store's second call (nil: none): clup-server's; a kiosk's configuration has none.
    public var recall: RecallPolicy? {
        let settings = settings
        return RecallPolicy(minutes: settings.recallMinutes.value, times: settings.recalls.value)
    }

    /// Whether the printer stops issuing once the wait passes closing (``LastTickets``): clup-server's; off until
    /// it says.
    public var stopTicketsPastClosing: Bool { settings.stopTicketsPastClosing.value }

    /// The settings in use and where each came from, as `/status` shows them.
    public var settings: EffectiveSettings {
        let server = Self.usable(fromServer.withLock { $0.settings })
        func setting<Value>(_ value: Value?, else configured: Value) -> EffectiveSettings.Setting<Value> {
            .init(value: value ?? configured, from: value == nil ? .configuration : .server)
        }
        return EffectiveSettings(
            name: setting(server.name, else: configured.name),
            languages: setting(server.languages?.map(\.rawValue), else: configured.languages.map(\.rawValue)),
            callWindowMinutes: setting(server.callWindow, else: configured.callWindow),
            averageVisitMinutes: setting(server.averageVisit, else: configured.averageVisitMinutes),
            largePrint: setting(server.largePrint, else: configured.largePrint),
            voiceVolume: setting(server.voiceVolume, else: configured.voiceVolume),
            footer: setting(server.footer, else: configured.footer),
            recallMinutes: setting(server.recall?.minutes, else: 0),
            recalls: setting(server.recall?.times, else: 1),
            stopTicketsPastClosing: setting(server.stopTicketsPastClosing, else: false)
        )
    }

    /// What of the server's settings this kiosk can follow: the languages it knows, values in their ranges.
    private static func usable(
        _ server: StoreSettings?
    ) -> (
        name: String?, languages: [SpokenLanguage]?, callWindow: Int?, averageVisit: Int?, largePrint: Bool?,
        voiceVolume: Int?, footer: String?, recall: (minutes: Int, times: Int)?, stopTicketsPastClosing: Bool?
    ) {
        func within(_ value: Int?, _ range: ClosedRange<Int>) -> Int? {
            value.flatMap { range.contains($0) ? $0 : nil }
        }
        return (
            server?.name.flatMap { TextLimit(1...200).allows($0) ? $0 : nil },
            server?.spokenLanguages,
            within(server?.callWindowMinutes, StoreSettings.callWindowRange),
            within(server?.averageVisitMinutes, StoreSettings.averageVisitRange),
            server?.largePrint,
            within(server?.voiceVolume, StoreSettings.voiceVolumeRange),
            server?.footer.flatMap { StoreSettings.valid(footer: $0) ? $0 : nil },
            // Both or neither: a kiosk follows a second call only as the store set it whole.
            within(server?.recallMinutes, RecallPolicy.minutes).flatMap { minutes in
                within(server?.recalls ?? 1, RecallPolicy.timesRange).map { (minutes, $0) }
            },
            server?.stopTicketsPastClosing
        )
    }

    /// The store's settings from clup-server: they replace the configuration's, and are stored.
    func serverSays(settings: StoreSettings) {
        guard fromServer.withLock({ $0.settings }) != settings else { return }
        do {
            let text = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
            try store.setServerSettings(text)
            fromServer.withLock { $0.settings = settings }
            let window = callWindow
            // Until the server has learnt the store's visits, the store's expected visit is the model.
            let learnt = (try? store.serverWaitModel()) != nil
            let visit = Duration.seconds(self.settings.averageVisitMinutes.value * 60)
            waits.withLock {
                $0 = WaitEstimator(model: learnt ? $0.model : .prior(averageVisit: visit), callWindow: window)
            }
            logger.notice("the store's settings, from clup-server", metadata: ["settings": "\(text)"])
        } catch {
            logger.error(
                "cannot keep the store's settings from clup-server",
                metadata: ["error": "\(error)", "action": "check the state directory's disk space"]
            )
        }
    }

    /// The wait estimate: the server's model of the store, else the configured average visit.
    public var estimator: WaitEstimator { waits.withLock { $0 } }

    /// The wait model clup-server uses for the store: it replaces the one in use, and is stored.
    func serverSays(model: WaitModel) {
        guard waits.withLock({ $0.model }) != model else { return }
        do {
            try store.setServerWaitModel(String(decoding: try JSONEncoder().encode(model), as: UTF8.self))
        } catch {
            logger.error(
                "cannot keep the store's wait model from clup-server",
                metadata: ["error": "\(error)", "action": "check the state directory's disk space"]
            )
        }
        waits.withLock { $0 = WaitEstimator(model: model, callWindow: $0.callWindow) }
    }

    /// The zone clup-server names for the store (kept when the configuration names none, and stored).
    func serverSays(zone name: String) {
        guard fromServer.withLock({ $0.zone?.identifier }) != name else { return }
        do {
            let zone = try TimeZoneDirectory.system.zone(named: name)
            try store.setServerTimeZone(name)
            fromServer.withLock { $0.zone = zone }
            if let configured = configured.zone, configured.identifier != name {
                logger.warning(
                    "[store] time_zone differs from the store's zone on clup-server; the configuration wins",
                    metadata: ["configured": "\(configured)", "server": "\(name)"]
                )
            } else if configured.zone == nil {
                logger.notice("the store's time zone, from clup-server", metadata: ["zone": "\(name)"])
            }
        } catch {
            logger.error(
                "cannot use the store's time zone from clup-server",
                metadata: ["zone": "\(name)", "error": "\(error)", "action": "install tzdata or set [store] time_zone"]
            )
        }
    }

    /// The weekly hours clup-server gives the store: they replace the configuration's, and are stored.
    func serverSays(hours: StoreHours) {
        guard fromServer.withLock({ $0.hours }) != hours else { return }
        do {
            let text = String(decoding: try JSONEncoder().encode(hours), as: UTF8.self)
            try store.setServerHours(text)
            fromServer.withLock { $0.hours = hours }
            logger.notice("the store's opening hours, from clup-server", metadata: ["hours": "\(text)"])
        } catch {
            logger.error(
                "cannot keep the store's opening hours from clup-server",
                metadata: ["error": "\(error)", "action": "check the state directory's disk space"]
            )
        }
    }
}
