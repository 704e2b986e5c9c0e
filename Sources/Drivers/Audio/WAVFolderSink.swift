import Foundation

/// Each phrase as a WAV file in a folder (`file:/path`): what the tests listen to, and a voice for a box
/// without a speaker. A file appears whole (written aside, then renamed), named by the phrase
/// (`0007-called.wav`).
public final class WAVFolderSink: AudioSink {
    public let folder: String
    public var address: String { AudioAddress.folder(folder).text }
    private var phrase: (name: String, rate: Int, samples: [Int16])?

    public init(folder: String) {
        self.folder = folder
    }

    public func begin(name: String, sampleRate: Int) throws(AudioError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw AudioError(.noDevice, device: address, "cannot create the folder (\(error)) — check [voice] output")
        }
        phrase = (name, sampleRate, [])
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioError) {
        phrase?.samples.append(contentsOf: samples)
    }

    public func end() throws(AudioError) {
        guard let phrase else { return }
        self.phrase = nil
        let file = "\(folder)/\(phrase.name).wav"
        let aside = "\(folder)/.\(phrase.name).wav.part"
        do {
            try Self.wav(phrase.samples, rate: phrase.rate).write(to: URL(fileURLWithPath: aside))
            guard rename(aside, file) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(atPath: aside)
            throw AudioError(.io, device: address, "cannot write \(file) (\(error)) — is the disk full?")
        }
    }

    public func abandon() { phrase = nil }

    public var underruns: Int { 0 }

    /// A RIFF/WAVE file of mono 16-bit PCM.
    static func wav(_ samples: [Int16], rate: Int) -> Data {
        var data = Data(capacity: 44 + samples.count * 2)
        func put32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func put16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        let bytes = samples.count * 2
        data.append(contentsOf: Array("RIFF".utf8))
        put32(36 + bytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        put32(16)
        put16(1)  // PCM
        put16(1)  // mono
        put32(rate)
        put32(rate * 2)  // bytes a second
        put16(2)  // bytes a frame
        put16(16)  // bits a sample
        data.append(contentsOf: Array("data".utf8))
        put32(bytes)
        for sample in samples { withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }
}
