import CALSA

/// A sound card through ALSA (libasound, opened at first use): the PCM is opened for each phrase, with ALSA's
/// own conversion to whatever the card takes, and closed once the phrase has played.
public final class ALSASink: AudioSink {
    public let device: String
    public var address: String { AudioAddress.alsa(device).text }
    /// Times the card ran dry in the middle of a phrase (a gap the listener hears), since start.
    public private(set) var underruns = 0
    private var pcm: OpaquePointer?
    private var api: CALSA_API?

    public init(device: String) {
        self.device = device
    }

    deinit { abandon() }

    private func library() throws(AudioError) -> CALSA_API {
        if let api { return api }
        switch LibraryTable.load(CALSA_load, library: "libasound", package: "libasound2") {
        case .success(let table):
            api = table
            return table
        case .failure(let missing):
            throw AudioError(.missingLibrary, device: address, missing.message)
        }
    }

    public func begin(name: String, sampleRate: Int) throws(AudioError) {
        let api = try library()
        abandon()
        var opened: OpaquePointer?
        var status = api.snd_pcm_open(&opened, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard status >= 0, let opened else {
            throw AudioError(
                .noDevice,
                device: address,
                "cannot open the sound card (\(api.text(status))) — `aplay -l` lists the "
                    + "cards; set [voice] output, add the kioskd user to the audio group, or turn voice off"
            )
        }
        // Mono 16-bit at the synthesizer's rate, resampled by ALSA where the card needs it; 300 ms of buffer:
        // the card starts once it is full (espeak-ng makes that in a few milliseconds), and a slow box keeps
        // that much ahead of the card instead of leaving gaps in a number.
        status = api.snd_pcm_set_params(
            opened,
            SND_PCM_FORMAT_S16_LE,
            SND_PCM_ACCESS_RW_INTERLEAVED,
            1,
            UInt32(sampleRate),
            1,
            300_000
        )
        guard status >= 0 else {
            _ = api.snd_pcm_close(opened)
            throw AudioError(
                .noDevice,
                device: address,
                "the sound card refuses mono 16-bit sound at \(sampleRate) Hz (\(api.text(status)))"
                    + " — use a plughw: device, which converts"
            )
        }
        pcm = opened
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioError) {
        guard let api, let pcm, var base = samples.baseAddress else { return }
        var left = samples.count
        while left > 0 {
            let written = api.snd_pcm_writei(pcm, base, snd_pcm_uframes_t(left))
            if written < 0 {
                if written == -Int(EPIPE) { underruns += 1 }
                // An underrun (the card ran dry) or a suspend: recover and go on; anything else is an error.
                let recovered = api.snd_pcm_recover(pcm, Int32(written), 1)
                guard recovered >= 0 else {
                    throw AudioError(
                        .io,
                        device: address,
                        "the sound card stopped taking sound (\(api.text(Int32(written))))"
                            + " — is it still plugged in?"
                    )
                }
                continue
            }
            left -= Int(written)
            base += Int(written)
        }
    }

    public func end() throws(AudioError) {
        guard let api, let pcm else { return }
        self.pcm = nil
        _ = api.snd_pcm_drain(pcm)
        _ = api.snd_pcm_close(pcm)
    }

    public func abandon() {
        guard let api, let pcm else { return }
        self.pcm = nil
        _ = api.snd_pcm_close(pcm)
    }
}

extension CALSA_API {
    /// ALSA's words for an error code.
    fileprivate func text(_ status: Int32) -> String {
        snd_strerror(status).map { String(cString: $0) } ?? "error \(status)"
    }
}
