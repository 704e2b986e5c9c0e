import Crypto
import Foundation
import GRDB
import KioskCore

/// A database the card damaged (or lost), found at start: what was wrong and where the damaged file was kept.
public struct StoreDamage: Codable, Sendable, Equatable {
    /// What was found, e.g. "file is not a database" or "the database was missing or empty".
    public var found: String
    /// The damaged file, kept aside for support (absent when there was none to keep).
    public var keptAs: String?
    /// The last number reserved before the damage (`A199`): that business day's codes go on above it.
    public var numberedAbove: String?
    /// The business day of that reservation (`2026-11-27`): another day's codes start again from 1, as every
    /// day's do (a code names its day in its signature).
    public var numberedOn: String?
    /// What could still be read from the damaged file and was carried over to the new database.
    public var carriedOver: [String] = []

    /// What the log, the manager page and `/status` say.
    public var sentence: String {
        let kept = keptAs.map { " — kept aside as \($0)" } ?? ""
        let numbers =
            numberedAbove.map { "the codes of \(numberedOn ?? "its day") go on above \($0)" }
            ?? "no reserved numbers were found (kioskd.codes): codes may repeat earlier ones until tomorrow"
        let salvaged = carriedOver.isEmpty ? "" : " (carried over: \(carriedOver.joined(separator: ", ")))"
        return "The kiosk's database was damaged (\(found))\(kept); started on a new one\(salvaged): the line is "
            + "rebuilt from clup-server's log when it is reached, \(numbers). Replace the SD card if it happens again."
    }
}

extension LocalStore {
    /// The damaged copies kept in the state directory: older ones are deleted.
    static let damagedCopiesKept = 2

    /// Opens the station's database in `directory`, checked (SQLite's `quick_check`). A damaged one — not a
    /// database, malformed pages, or missing while the printer's reserved numbers say there was one — is
    /// kept aside (`kioskd.sqlite.damaged-…`) and a new one made: the kiosk starts, says so (the returned
    /// ``StoreDamage``), and its printer numbers above what it reserved before (``CodeReservation``).
    public static func open(directory: String, now: Date = Date()) throws -> (store: LocalStore, damage: StoreDamage?) {
        let path = "\(directory)/kioskd.sqlite"
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        // Damage met while the last run was running (``WatchedQueue``): this start checks the whole file.
        let marker = WatchedQueue.markerPath(of: path)
        let seen = (try? String(contentsOfFile: marker, encoding: .utf8)).map { "met while running: \($0)" }
        var found = seen.map { [$0] } ?? []
        do {
            let store = try LocalStore(path: path)
            let check = seen == nil ? try store.quickCheck() : try store.integrityCheck()
            if check == ["ok"] {
                try? FileManager.default.removeItem(atPath: marker)
                // An empty file is a database made just now: reserved numbers say this box had one before.
                guard size == 0, store.codes.exists else { return (store, nil) }
                return (store, damage("the database was missing or empty", keptAs: nil, codes: store.codes))
            }
            found += check.prefix(3)
        } catch let error as DatabaseError where isDamage(error) {
            found.append(error.message ?? "\(error.resultCode)")
        }
        let kept = try setAside(path, at: now)
        try? FileManager.default.removeItem(atPath: marker)
        let store = try LocalStore(path: path)
        var report = damage(found.joined(separator: "; "), keptAs: kept, codes: store.codes)
        report.carriedOver = salvage(from: kept, into: store)
        try? FileManager.default.removeItem(atPath: kept + "-shm")  // made by the read-only open
        return (store, report)
    }

    /// Calls `action` once, with what SQLite said, when this database is found damaged while running (a read
    /// or write met `SQLITE_CORRUPT`): the next ``open(directory:now:)`` checks the whole file and sets it aside.
    public func onDamage(_ action: @escaping @Sendable (String) -> Void) { db.onDamage(action) }

    /// What SQLite said when this database was found damaged while running (nil: it was not).
    public var damageSeen: String? { db.damageSeen }

    /// Carries over what can still be read from the damaged file at `kept` (opened read-only): the device's
    /// signing key — the tickets customers hold were signed with it, so the server's key ring keeps it and doors
    /// go on honouring them — and the store's key ring as cached, for a door offline. Says what it carried.
    private static func salvage(from kept: String, into store: LocalStore) -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        guard let old = try? DatabaseQueue(path: kept, configuration: configuration) else { return [] }
        var carried: [String] = []
        if let raw = try? old.read({ try Data.fetchOne($0, sql: "SELECT signing_key FROM device WHERE id = 1") }),
            let signer = try? TicketSigner(rawRepresentation: Array(raw)),
            (try? store.signingKey(adopting: signer)) != nil
        {
            carried.append("the signing key")
        }
        let rows = (try? old.read { try Row.fetchAll($0, sql: "SELECT * FROM trusted_keys") }) ?? []
        let keys = rows.filter { row in
            guard let raw = row["public_key"] as Data?,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw),
                let device = row["device"] as DeviceID?
            else { return false }
            let added = Timestamp(milliseconds: row["added_at"] as Int64? ?? 0)
            let fromServer = row["from_server"] as Bool? ?? false
            return (try? store.trust(key, device: device, at: added, fromServer: fromServer)) != nil
        }.count
        if keys > 0 { carried.append("\(keys) key\(keys == 1 ? "" : "s") of the store's ring") }
        return carried
    }

    private static func damage(_ found: String, keptAs: String?, codes: CodeReservationFile) -> StoreDamage {
        guard let reservation = codes.reservation else { return StoreDamage(found: found, keptAs: keptAs) }
        return StoreDamage(
            found: found,
            keptAs: keptAs,
            numberedAbove: "\(reservation.prefix)\(reservation.upTo)",
            numberedOn: BusinessDay(number: reservation.day).dateText
        )
    }

    static func isDamage(_ error: DatabaseError) -> Bool {
        [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode)
    }

    /// Renames the damaged database (and its write-ahead log) aside; returns the new name. Keeps the newest
    /// ``damagedCopiesKept`` copies.
    private static func setAside(_ path: String, at now: Date) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let kept = "\(path).damaged-\(formatter.string(from: now))"
        let files = FileManager.default
        do {
            try files.moveItem(atPath: path, toPath: kept)
            if files.fileExists(atPath: path + "-wal") {
                try files.moveItem(atPath: path + "-wal", toPath: kept + "-wal")
            }
            try? files.removeItem(atPath: path + "-shm")
        } catch {
            throw StoreError(
                description: "\(path) is damaged and cannot be moved aside (\(error)) — the state directory must be "
                    + "writable by the kiosk user; or move the file away by hand and start kioskd again"
            )
        }
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent + ".damaged-"
        let copies = ((try? files.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix(name) && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
        for old in copies.dropLast(damagedCopiesKept) {
            for suffix in ["", "-wal", "-shm"] { try? files.removeItem(atPath: "\(directory)/\(old)\(suffix)") }
        }
        return kept
    }
}
