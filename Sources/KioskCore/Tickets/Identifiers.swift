import Crypto
import FoundationEssentials

/// A store, as the server registered it.
public typealias StoreID = UUID

/// A ticket; UUIDv7, made by the device that issued it.
public typealias TicketID = UUID

/// A store event; UUIDv7, made by the device that created it, so appending it twice is detectable.
public typealias EventID = UUID

/// A kiosk or server instance, e.g. `entrance-1`.
public typealias DeviceID = String

extension UUID {
    /// A version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, then random bits. Sorts by creation time.
    public static func v7<R: RandomNumberGenerator>(at time: Timestamp, using rng: inout R) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        let ms = UInt64(max(time.milliseconds, 0))
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: ms >> (8 * (5 - i))) }
        let random = (rng.next() as UInt64, rng.next() as UInt64)
        for i in 6..<16 { bytes[i] = UInt8(truncatingIfNeeded: (i < 14 ? random.0 : random.1) >> (8 * (i % 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562 variant
        return UUID(bytes: bytes)
    }

    public static func v7(at time: Timestamp) -> UUID {
        var rng = SystemRandomNumberGenerator()
        return v7(at: time, using: &rng)
    }

    /// A version 8 UUID (RFC 9562, custom) from the first bytes of SHA-256 of `name`: the same name always
    /// gives the same id, on every device (an event that several devices write, e.g. ``StoreEvent/dayStarted``).
    public static func derived(from name: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Array(name.utf8)).prefix(16))
        bytes[6] = 0x80 | (bytes[6] & 0x0F)  // version 8
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562 variant
        return UUID(bytes: bytes)
    }

    /// Whether this is a ``derived(from:)`` id (version 8): such an id names one event that several devices
    /// write alike, and is anyone's to compute — so it may stand only for the event it derives
    /// (``StoreEvent/isDerivedCorrectly``), never for another.
    public var isDerived: Bool { uuid.6 >> 4 == 8 }

    init(bytes b: [UInt8]) {
        self.init(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}
