/// Where the kiosk's voice goes, one phrase at a time: mono signed 16-bit samples at the synthesizer's rate.
/// ``ALSASink`` plays them on a sound card; ``WAVFolderSink`` writes each phrase to a WAV file (tests, the demo,
/// a box without a speaker). Blocking: the voice's own thread calls it.
public protocol AudioSink: AnyObject {
    /// The address it was made from (`alsa:default`, `file:/var/lib/kioskd/voice`).
    var address: String { get }
    /// Starts a phrase; `name` says what it is (`0007-called`), for a file sink's file name.
    func begin(name: String, sampleRate: Int) throws(AudioError)
    func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioError)
    /// Plays out what was written and lets go of the device (another program may use the card in between).
    func end() throws(AudioError)
    /// Drops the phrase begun, if any (a failed synthesis).
    func abandon()
    /// Times the output ran dry in the middle of a phrase, since start (0 for a file).
    var underruns: Int { get }
}

/// Where `[voice] output` points.
public enum AudioAddress: Sendable, Equatable {
    /// An ALSA PCM name: `default`, `hw:1,0`, `plughw:CARD=Device`.
    case alsa(String)
    /// A folder that gets one WAV file per phrase.
    case folder(String)

    public init(parsing text: String) throws(AudioError) {
        if text.hasPrefix("alsa:"), text.count > 5 {
            self = .alsa(String(text.dropFirst(5)))
        } else if text.hasPrefix("file:/") {
            self = .folder(String(text.dropFirst(5)))
        } else {
            throw AudioError(
                .invalidAddress,
                device: text,
                "use alsa:default, alsa:hw:1,0 (`aplay -l` lists the cards) or file:/a/folder for WAV files"
            )
        }
    }

    /// As `[voice] output` writes it: `alsa:default`, `file:/var/lib/kioskd/voice`.
    public var text: String {
        switch self {
        case .alsa(let device): return "alsa:\(device)"
        case .folder(let path): return "file:\(path)"
        }
    }

    /// The sink for this address (nothing is opened until a phrase begins).
    public func makeSink() -> any AudioSink {
        switch self {
        case .alsa(let device): return ALSASink(device: device)
        case .folder(let path): return WAVFolderSink(folder: path)
        }
    }
}
