import Glibc
import KioskCore
import Synchronization
import SystemCalls

/// The system's compiled time zones (Debian's `tzdata`: `/usr/share/zoneinfo`, or `$TZDIR`), read by IANA name
/// and kept once read. Names come from configuration and from the public API, so only a name made of the
/// characters IANA uses is ever turned into a path (no `..`, no leading `/`), and the legacy `posix/` and
/// leap-second `right/` trees are refused.
public final class TimeZoneDirectory: Sendable {
    /// Why a name is not a time zone here, in words for the person who typed it.
    public struct Unknown: Error, Sendable, CustomStringConvertible {
        public var name: String
        public var reason: String
        public var description: String { "'\(name)' is not a time zone: \(reason)" }
    }

    public static let system = TimeZoneDirectory(
        path: getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
    )

    let path: String
    private let loaded = Mutex<[String: StoreTimeZone]>([:])

    public init(path: String) { self.path = path }

    /// The zone called `name`: an IANA name (`Europe/Rome`) or a fixed offset `UTC±HH:MM`.
    public func zone(named name: String) throws(Unknown) -> StoreTimeZone {
        if let offset = StoreTimeZone.fixedOffset(named: name) { return StoreTimeZone(fixedOffsetSeconds: offset) }
        if let zone = loaded.withLock({ $0[name] }) { return zone }
        try Self.checkName(name)
        let bytes: [UInt8]
        do { bytes = try readFile(path + "/" + name, limit: 1 << 20) } catch {
            throw Unknown(name: name, reason: "no such zone in \(path) (\(error)) — use an IANA name like Europe/Rome")
        }
        let zone: StoreTimeZone
        do { zone = try StoreTimeZone(identifier: name, tzif: bytes) } catch {
            throw Unknown(name: name, reason: "\(path)/\(name) is damaged (\(error)) — reinstall the tzdata package")
        }
        loaded.withLock { $0[name] = zone }
        return zone
    }

    /// Area/Location names: letters, digits, `_`, `+`, `-`, up to three parts, 64 characters.
    static func checkName(_ name: String) throws(Unknown) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        let allowed = parts.allSatisfy { part in
            guard let first = part.first, first.isASCII, first.isLetter else { return false }
            return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_+-".contains($0)) }
        }
        guard !name.isEmpty, name.utf8.count <= 64, parts.count <= 3, allowed else {
            throw Unknown(name: name, reason: "an IANA name is like Europe/Rome or America/Argentina/Buenos_Aires")
        }
        guard !["posix", "right", "posixrules", "localtime", "Factory"].contains(String(parts[0])) else {
            throw Unknown(name: name, reason: "name the zone itself, like Europe/Rome")
        }
    }
}

/// The whole of a regular file of at most `limit` bytes.
private func readFile(_ path: String, limit: Int) throws -> [UInt8] {
    let fd = try syscall("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
    defer { close(fd) }
    var info = stat()
    try syscall("fstat \(path)") { fstat(fd, &info) }
    guard info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else { throw TooLarge() }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var done = 0
    while done < bytes.count {
        let n = try syscall("read \(path)") {
            bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
        }
        guard n > 0 else { throw TooLarge() }  // the file shrank while read
        done += n
    }
    return bytes
}

private struct TooLarge: Error, CustomStringConvertible {
    var description: String { "not a regular file of a time zone's size" }
}
