import CESpeak
import Synchronization

/// Speech made on the box by espeak-ng (libespeak-ng, opened when voice is configured): text in, samples out
/// as they are made, so the first ones play while the rest of the phrase is still being made. espeak-ng keeps
/// one state per process: one thread speaks (the voice's).
public final class SpeechSynthesizer: @unchecked Sendable {
    // @unchecked Sendable: made once, then used by the voice's thread alone (espeak-ng is not reentrant).
    /// Mono 16-bit samples a second (espeak-ng's: 22,050).
    public let sampleRate: Int
    private let api: CESPEAK_API

    /// espeak_Initialize may run once in a process; its answer is kept.
    private static let initialized = Mutex<Result<(CESPEAK_API, Int), AudioError>?>(nil)

    /// Loads libespeak-ng and its voice data; `rate` is words a minute (80–450).
    public init(rate: Int) throws(AudioError) {
        let result = Self.initialized.withLock { state -> Result<(CESPEAK_API, Int), AudioError> in
            if let state { return state }
            let made = Self.initialize()
            state = made
            return made
        }
        (api, sampleRate) = try result.get()
        _ = api.espeak_SetParameter(espeakRATE, Int32(rate), 0)
    }

    private static func initialize() -> Result<(CESPEAK_API, Int), AudioError> {
        let table: CESPEAK_API
        switch LibraryTable.load(CESPEAK_load, library: "libespeak-ng", package: "libespeak-ng1") {
        case .success(let loaded): table = loaded
        case .failure(let missing):
            return .failure(AudioError(.missingLibrary, device: "espeak-ng", missing.message + ", or turn voice off"))
        }
        // Samples come back through the callback in chunks of 50 ms; a missing data folder is an answer, not
        // an exit of the whole process.
        let rate = table.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 50, nil, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else {
            return .failure(
                AudioError(
                    .missingLibrary,
                    device: "espeak-ng",
                    "espeak-ng found no voice data — install Debian's espeak-ng-data (apt install espeak-ng-data)"
                )
            )
        }
        return .success((table, Int(rate)))
    }

    /// Says `text` with `voice` (an espeak-ng voice name such as `en-us+f2`) at `volume` percent (100: as made);
    /// `body` gets the samples in order, and stops the phrase by throwing.
    public func speak(
        _ text: String,
        voice: String,
        volume: Int,
        into body: (UnsafeBufferPointer<Int16>) throws(AudioError) -> Void
    ) throws(AudioError) {
        guard api.espeak_SetVoiceByName(voice) == EE_OK else {
            throw AudioError(
                .missingLibrary,
                device: "espeak-ng",
                "no voice '\(voice)' — `espeak-ng --voices` lists them (Debian's espeak-ng-data has en and it)"
            )
        }
        _ = api.espeak_SetParameter(espeakVOLUME, Int32(volume), 0)
        var failure: AudioError?
        let status = withoutActuallyEscaping(body) { body in
            var sink = { (samples: UnsafeBufferPointer<Int16>) -> Bool in
                do throws(AudioError) {
                    try body(samples)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            return withUnsafePointer(to: api) { api in
                withUnsafeMutablePointer(to: &sink) { context in
                    CESPEAK_speak(
                        api,
                        text,
                        { samples, count, context in
                            guard let context else { return 1 }
                            let go = context.assumingMemoryBound(to: ((UnsafeBufferPointer<Int16>) -> Bool).self)
                                .pointee
                            return go(UnsafeBufferPointer(start: samples, count: Int(count))) ? 0 : 1
                        },
                        context
                    )
                }
            }
        }
        if let failure { throw failure }
        guard status == EE_OK.rawValue else {
            throw AudioError(.io, device: "espeak-ng", "espeak-ng could not speak '\(text)' (error \(status))")
        }
    }
}
