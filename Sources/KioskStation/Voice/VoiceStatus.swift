/// What the status endpoint reports about the voice.
public struct VoiceStatus: Sendable, Codable, Equatable {
    /// `starting`, `ready`, `speaking`, `unavailable` (no sound card, or espeak-ng missing: see `action`) or
    /// `stopped`.
    public var state = "starting"
    /// `alsa:default`, `file:/folder`.
    public var output: String
    public var spoken = 0
    /// Phrases dropped because they came faster than the voice could say them.
    public var dropped = 0
    /// Phrases that could not be played (no sound card at the time).
    public var failed = 0
    /// Times the sound card ran dry in the middle of a phrase (a gap in the words: the box too slow).
    public var underruns = 0
    /// The last phrase said, in the first language.
    public var last: String?
    /// Milliseconds from a phrase being asked for to its first sample handed to the card, for the last one.
    public var firstSampleMilliseconds: Int?
    /// When the last phrase's first sample was handed to the card (microseconds since 1970: benchmarks time
    /// a scan to it).
    public var firstSampleAt: Int64?
    /// What the installer should do, while the voice cannot speak.
    public var action: String?

    public init(output: String) {
        self.output = output
    }
}
