import Drivers
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

/// The voice's blocking loop on its own thread: takes the next phrase, makes it (espeak-ng) and plays it,
/// a chime first for a call, in each of the store's languages.
final class VoiceLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then used by one thread only.
    let voice: Voice
    private let sink: any AudioSink
    private var synthesizer: SpeechSynthesizer?
    private var sequence = 0
    /// Why the voice cannot speak, while it cannot (logged once per cause, not once per phrase).
    private var unavailable: String?

    init(voice: Voice) {
        self.voice = voice
        sink = voice.config.output.makeSink()
    }

    func run() {
        if (try? synthesizerReady()) != nil { voice.publish { $0.state = "ready" } }
        while !voice.signal.isStopped {
            // The nudge is taken before looking, so a phrase queued after the look still wakes the sleep.
            _ = voice.signal.takeNudge()
            while let phrase = voice.next(), !voice.signal.isStopped {
                say(phrase)
            }
            voice.signal.sleep(.seconds(1))
        }
        sink.abandon()
    }

    private func synthesizerReady() throws(AudioError) -> SpeechSynthesizer {
        if let synthesizer { return synthesizer }
        do {
            let made = try SpeechSynthesizer(rate: voice.config.rate)
            synthesizer = made
            return made
        } catch {
            cannotSpeak(error)
            throw error
        }
    }

    private func say(_ phrase: Asked) {
        do {
            let synthesizer = try synthesizerReady()
            sequence += 1
            try sink.begin(
                name: "\(String(1_000_000 + sequence).dropFirst())-\(phrase.announcement.label)",
                sampleRate: synthesizer.sampleRate
            )
            voice.publish { $0.state = "speaking" }
            var heard: Duration?
            var heardAt: Int64?
            let play = { (samples: UnsafeBufferPointer<Int16>) throws(AudioError) in
                if heard == nil {
                    heard = ContinuousClock.now - phrase.at
                    heardAt = Self.wallMicroseconds()
                }
                try self.sink.write(samples)
            }
            let volume = voice.volume()
            if phrase.announcement.isCall {
                try Chime.samples(sampleRate: synthesizer.sampleRate, volume: volume).withUnsafeBufferPointer {
                    (samples) throws(AudioError) in try play(samples)
                }
            }
            let languages = voice.languages()
            for language in languages {
                try synthesizer.speak(
                    phrase.announcement.text(in: language),
                    voice: KioskConfig.Voice.espeakVoice(language),
                    volume: volume,
                    into: play
                )
            }
            try sink.end()
            if unavailable != nil {
                voice.logger.notice("voice speaks again", metadata: ["output": "\(sink.address)"])
                unavailable = nil
            }
            voice.metrics.voicePhrase("spoken")
            voice.publish {
                $0.state = "ready"
                $0.spoken += 1
                $0.underruns = self.sink.underruns
                $0.last = phrase.announcement.text(in: languages.first ?? .english)
                $0.firstSampleMilliseconds = heard.map { Int($0 / .milliseconds(1)) }
                $0.firstSampleAt = heardAt
                $0.action = nil
            }
        } catch {
            sink.abandon()
            voice.metrics.voicePhrase("failed")
            voice.publish { $0.failed += 1 }
            cannotSpeak(error)
        }
    }

    static func wallMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    private func cannotSpeak(_ error: AudioError) {
        voice.publish {
            $0.state = "unavailable"
            $0.action = error.message
        }
        guard unavailable != error.message else { return }
        unavailable = error.message
        voice.logger.warning(
            "the kiosk cannot speak (it goes on without its voice)",
            metadata: ["output": "\(error.device)", "error": "\(error.message)"]
        )
    }
}

extension Announcement {
    /// What a phrase's WAV file is named after: `number-A001`, `called-A002`, `door-not_your_turn`.
    var label: String {
        switch self {
        case .yourNumber(let code, _): return "number-\(code)"
        case .called(let code): return "called-\(code)"
        case .calledAgain(let code): return "called-again-\(code)"
        case .decision(let decision): return "door-\(decision.reason)"
        case .callsPaused: return "calls-paused"
        }
    }
}
