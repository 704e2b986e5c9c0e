import Drivers
import KioskCore
import StrictTOML

extension KioskConfig {
    /// `[voice]`: what the kiosk says aloud, made on the box (espeak-ng) and played on its sound card (ALSA).
    public struct Voice: Sendable, Equatable {
        public var enabled = false
        /// `alsa:default`, `alsa:hw:1,0`, or `file:/folder` (a WAV file per phrase).
        public var output = AudioAddress.alsa("default")
        /// The store's languages: each phrase is said in each, in this order.
        public var languages: [SpokenLanguage] = [.english]
        /// Percent of the voice's own level (100: as espeak-ng makes it).
        public var volume = 90
        /// Words a minute: 140 is slower than espeak-ng's 175, for numbers heard at a door.
        public var rate = 140
        /// Call out each ticket as it is called (a chime, then its number); off on a second kiosk of the store
        /// whose speaker is not at the entrance.
        public var calls = true

        public init() {}

        /// espeak-ng's voice for `language`: the female variant f2, which a speech recognizer (the tests')
        /// understood best among espeak-ng's variants in English.
        public static func espeakVoice(_ language: SpokenLanguage) -> String {
            switch language {
            case .english: return "en-us+f2"
            case .italian: return "it+f2"
            }
        }
    }

    static func parseVoice(_ table: StrictTable, into voice: inout Voice) throws(TOMLFileError) {
        voice.enabled = try table.bool("enabled") ?? voice.enabled
        if let output = try table.string("output") {
            do {
                voice.output = try AudioAddress(parsing: output)
            } catch {
                throw table.error("output", "'\(output)' — \(error.message)")
            }
        }
        if let names = try table.strings("languages") {
            var languages: [SpokenLanguage] = []
            for name in names {
                guard let language = SpokenLanguage(rawValue: name) else {
                    let known = SpokenLanguage.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    throw table.error("languages", "'\(name)' is not a language the kiosk speaks — use \(known)")
                }
                if !languages.contains(language) { languages.append(language) }
            }
            guard !languages.isEmpty else { throw table.error("languages", "name at least one, e.g. [\"en\"]") }
            voice.languages = languages
        }
        voice.volume = try table.int("volume", in: 0...100) ?? voice.volume
        voice.rate = try table.int("rate", in: 80...300) ?? voice.rate
        voice.calls = try table.bool("calls") ?? voice.calls
        try table.rejectUnknownKeys()
    }
}
