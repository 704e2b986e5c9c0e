import Foundation

/// The two-note chime before a call ("ding-dong": E5 then C5, each fading), made in code at the voice's rate.
public enum Chime {
    /// The chime's samples at `sampleRate`, at `volume` percent of a comfortable level.
    public static func samples(sampleRate: Int, volume: Int) -> [Int16] {
        let notes: [(frequency: Double, seconds: Double)] = [(659.25, 0.35), (523.25, 0.6)]
        let peak = 9000.0 * Double(min(max(volume, 0), 100)) / 100
        var out: [Int16] = []
        for note in notes {
            let count = Int(note.seconds * Double(sampleRate))
            out.reserveCapacity(out.count + count)
            for i in 0..<count {
                let t = Double(i) / Double(sampleRate)
                // A short attack against clicks, then an exponential fade.
                let envelope = min(t / 0.005, 1) * exp(-3.5 * t / note.seconds)
                out.append(Int16(peak * envelope * sin(2 * Double.pi * note.frequency * t)))
            }
        }
        // Half a second of quiet before the words: the chime is heard as a sign of its own.
        out.append(contentsOf: repeatElement(0, count: sampleRate / 2))
        return out
    }
}
