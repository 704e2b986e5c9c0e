import Foundation

/// Listens to what the kiosk said: Debian's pocketsphinx (its US English model) on a WAV file, with a grammar
/// of the kiosk's phrases and the letters and digits of ticket codes, so a word heard is one the kiosk could
/// have said. espeak-ng's 22,050 Hz output is resampled to the model's 16 kHz by sox first.
///
/// Only English is checked this way: Debian ships no Italian model for pocketsphinx.
enum Listener {
    static let tools = ["pocketsphinx_continuous", "sox"]
    static let model = "/usr/share/pocketsphinx/model/en-us"

    /// What was heard in `wav` (any rate; raw signed 16-bit mono at `rawRate` when given), one transcript per
    /// stretch of sound: sox cuts the sound at every pause of 0.4 s or more (a chime is a stretch of its own,
    /// followed by half a second of quiet) and pocketsphinx decodes each stretch. Lower case words, single
    /// spaces; stretches heard as nothing are left out.
    static func heard(_ wav: String, rawRate: Int? = nil) throws -> [String] {
        let work = HIL.temporaryDirectory("listen")
        defer { try? FileManager.default.removeItem(atPath: work) }
        try grammar.write(toFile: "\(work)/kiosk.jsgf", atomically: true, encoding: .utf8)
        try dictionary().write(toFile: "\(work)/kiosk.dict", atomically: true, encoding: .utf8)
        let input = rawRate.map { ["-t", "raw", "-r", "\($0)", "-e", "signed", "-b", "16", "-c", "1", wav] } ?? [wav]
        let sox = try HIL.run(
            "sox",
            input + [
                "-r", "16000", "-c", "1", "-b", "16", "\(work)/part.wav",
                "silence", "1", "0.05", "0.5%", "1", "0.4", "0.5%", ":", "newfile", ":", "restart",
            ]
        )
        guard sox.status == 0 else { throw Failed(description: "sox: \(sox.error)") }
        let parts = try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.hasPrefix("part") }.sorted()
        return try parts.compactMap { part in
            let result = try HIL.run(
                "pocketsphinx_continuous",
                [
                    "-infile", "\(work)/\(part)", "-jsgf", "\(work)/kiosk.jsgf", "-dict", "\(work)/kiosk.dict",
                    "-hmm", "\(model)/en-us", "-logfn", "/dev/null",
                ]
            )
            guard result.status == 0 else { throw Failed(description: "pocketsphinx: \(result.error)") }
            let words = result.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return words.isEmpty ? nil : words
        }
    }

    /// How many of `codes` were heard called ("number a zero zero three please come to the entrance") among
    /// `transcripts`.
    static func callsHeard(_ codes: [String], in transcripts: [String]) -> Int {
        codes.filter { code in transcripts.contains { $0.contains("number \(words(code)) please come") } }.count
    }

    /// A ticket code as the grammar's words: "A003" → "a zero zero three".
    static func words(_ code: String) -> String {
        code.lowercased().map { digits[$0].map { $0 } ?? String($0) }.joined(separator: " ")
    }

    /// The root-mean-square level (0–1) and rough frequency (Hz) of `wav` from `start` for `length` seconds,
    /// by sox's `stat`.
    static func level(_ wav: String, from start: Double, for length: Double) throws -> (rms: Double, frequency: Double)
    {
        let result = try HIL.run("sox", [wav, "-n", "trim", "\(start)", "\(length)", "stat"])
        func value(_ name: String) throws -> Double {
            let line = result.error.split(separator: "\n").first { $0.hasPrefix(name) }
            guard let value = line?.split(separator: " ").last.flatMap({ Double($0) }) else {
                throw Failed(description: "sox stat has no \(name): \(result.error)")
            }
            return value
        }
        return (try value("RMS     amplitude"), try value("Rough   frequency"))
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    private static let digits: [Character: String] = [
        "0": "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
        "8": "eight", "9": "nine",
    ]

    /// What the kiosk says in English, as pocketsphinx may hear it: one utterance per phrase.
    private static let grammar = """
        #JSGF V1.0;
        grammar kiosk;
        public <phrase> = <call> | <number> | <door>;
        <call> = [number] <code> [please come to the entrance];
        <number> = your number is <code> [about <digit>+ minutes];
        <door> = please come in | not your turn yet;
        <code> = <letter> <digit> <digit> <digit>;
        <letter> = a | b | c;
        <digit> = zero | one | two | three | four | five | six | seven | eight | nine;
        """

    /// The grammar's words from the model's dictionary, the letters as letters (its "a" is the article).
    private static func dictionary() throws -> String {
        let full = try String(contentsOfFile: "\(model)/cmudict-en-us.dict", encoding: .utf8)
        let wanted: Set<Substring> = [
            "please", "come", "to", "the", "entrance", "your", "number", "is", "about", "minutes", "in", "not",
            "turn", "yet", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
        ]
        let lines = full.split(separator: "\n").filter { line in
            line.split(separator: " ", maxSplits: 1).first.map { wanted.contains($0) } ?? false
        }
        return (["a EY", "b B IY", "c S IY"] + lines.map(String.init)).joined(separator: "\n") + "\n"
    }
}
