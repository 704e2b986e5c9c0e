import CZlib
import Foundation

/// A kept store state as stored: its JSON deflated (zlib), after its length (4 bytes, big-endian). A busy
/// store's state is mostly per-minute counts that are zero and tickets that differ in a few bytes: deflated, it
/// takes a tenth of the space and of what a chain writes to its database every interval.
enum SnapshotPacking {
    /// Bytes that are not a packed state (cut short, or written by something else).
    struct Damaged: Error, CustomStringConvertible {
        var description: String { "not a deflated state (damaged, or cut short)" }
    }

    /// The largest state read back (a day of a very large store is a few MB).
    static let largest = 256 << 20

    static func pack(_ json: Data) -> Data {
        var size = compressBound(uLong(json.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let rc = json.withUnsafeBytes {
            compress2(&out, &size, $0.bindMemory(to: Bytef.self).baseAddress, uLong(json.count), 6)
        }
        precondition(rc == Z_OK, "zlib's compress2 failed (\(rc)) with a buffer of compressBound's size")
        let length = UInt32(json.count)
        return Data([UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            + out.prefix(Int(size))
    }

    /// The JSON of a packed state; nil for bytes that are not one.
    static func unpack(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count > 4 else { return nil }
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard length <= largest else { return nil }
        var out = [UInt8](repeating: 0, count: length)
        var size = uLong(length)
        let rc = bytes.withUnsafeBufferPointer { uncompress(&out, &size, $0.baseAddress! + 4, uLong(bytes.count - 4)) }
        guard rc == Z_OK, Int(size) == length else { return nil }
        return Data(out)
    }
}
