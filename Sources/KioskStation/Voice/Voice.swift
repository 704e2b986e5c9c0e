import Drivers
import KioskCore
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// The kiosk's voice: says the number of a ticket taken, the door's decisions and the calls, in the store's
/// languages, on the box (espeak-ng) through its sound card (ALSA) or into WAV files.
///
/// ``say(_:)`` never waits: phrases go into a bounded ``SpeechQueue`` that the voice's own thread
/// (``VoiceLoop``) empties, so a slow or missing sound card never holds up a decision, a print or a scan. A
/// missing card is a warning and a status, not a stop; it is tried again for every phrase.
public final class Voice: Service, Sendable {
    public let config: KioskConfig.Voice
    /// The languages each phrase is said in, the main one first: the store's once the kiosk synced
    /// (``StoreSchedule/languages``), else `[voice] languages`.
    let languages: @Sendable () -> [SpokenLanguage]
    /// Its volume in percent: the store's once the kiosk synced (``StoreSchedule/voiceVolume``), else `[voice]
    /// volume`.
    let volume: @Sendable () -> Int
    let logger: Logger
    let changes: ChangeFeed
    let metrics: StationMetrics
    let signal = StopSignal()
    private let pending = Mutex(SpeechQueue<Asked>())
    private let published: Mutex<VoiceStatus>

    public init(
        config: KioskConfig.Voice,
        languages: (@Sendable () -> [SpokenLanguage])? = nil,
        volume: (@Sendable () -> Int)? = nil,
        logger: Logger,
        changes: ChangeFeed,
        metrics: StationMetrics
    ) {
        self.config = config
        self.languages = languages ?? { [languages = config.languages] in languages }
        self.volume = volume ?? { [volume = config.volume] in volume }
        self.logger = logger
        self.changes = changes
        self.metrics = metrics
        published = Mutex(VoiceStatus(output: config.output.text))
    }

    public var status: VoiceStatus { published.withLock { $0 } }

    /// Queues `announcement` and returns at once; a phrase dropped to make room is counted.
    public func say(_ announcement: Announcement) {
        let asked = ContinuousClock.now
        let gone = pending.withLock { $0.add(Asked(announcement, at: asked)) }
        if gone != nil {
            metrics.voicePhrase("dropped")
            publish { $0.dropped += 1 }
        }
        signal.nudge()
    }

    /// The next phrase to say, if one waits.
    func next() -> Asked? { pending.withLock { $0.next() } }

    func publish(_ change: (inout VoiceStatus) -> Void) {
        published.withLock { change(&$0) }
        changes.notify()
    }

    public func run() async throws {
        let loop = VoiceLoop(voice: self)
        await signal.runOnDedicatedThread(named: "voice") { loop.run() }
        publish { $0.state = "stopped" }
    }
}

/// A phrase and when it was asked for (to measure how soon it was heard).
struct Asked: Speakable {
    let announcement: Announcement
    let at: ContinuousClock.Instant

    init(_ announcement: Announcement, at: ContinuousClock.Instant) {
        self.announcement = announcement
        self.at = at
    }
}
