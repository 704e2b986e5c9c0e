import Foundation
import Glibc
import KioskCore
import ServiceSupport
import Synchronization

/// Where the printer's ``CodeReservation`` lives: `kioskd.codes` beside `kioskd.sqlite`, a line of JSON written to
/// a new file, flushed, and renamed over the old one (then the directory flushed), so a power cut leaves the
/// old reservation or the new one, never half of one. Read once at start; written before the number it covers
/// is handed out.
public final class CodeReservationFile: Sendable {
    public let path: String
    private let current: Mutex<CodeReservation?>

    /// The file beside the database at `database` (its name with `.codes` for its extension).
    public init(database: String) {
        path = (database as NSString).deletingPathExtension + ".codes"
        current = Mutex(Self.read(path))
    }

    /// What the file holds (nil: there is none, or it cannot be read).
    public var reservation: CodeReservation? { current.withLock { $0 } }

    /// Whether the file is there at all: a kiosk that reserved numbers here had a database here.
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    static func read(_ path: String) -> CodeReservation? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(CodeReservation.self, from: data)
    }

    /// Makes sure `number` is reserved for `database` before it is handed out: writes a new reservation when
    /// the one on disk does not cover it. Throws when it cannot be written (no number is handed out then).
    public func cover(_ number: Int, database: String, prefix: String, day: Int64) throws {
        try current.withLock { reservation in
            guard
                let next = CodeReservation.covering(
                    number,
                    database: database,
                    prefix: prefix,
                    day: day,
                    reservation: reservation
                )
            else { return }
            try write(next)
            reservation = next
        }
    }

    private func write(_ reservation: CodeReservation) throws {
        var data = try JSONEncoder().encode(reservation)
        data.append(0x0A)
        guard DurableFile.replace(path, with: data, mode: 0o644) else { throw failure("cannot write \(path)") }
    }

    private func failure(_ what: String) -> LocalStore.StoreError {
        LocalStore.StoreError(
            description: "\(what) (\(String(cString: strerror(errno)))) — the state directory must be writable "
                + "by the kiosk user and have room; no ticket is issued until it is"
        )
    }
}
