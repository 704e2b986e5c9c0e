import Foundation
import GRDB
import Synchronization

/// The station's database queue, watched for a card that goes bad under a running kiosk.
///
/// Every read and write goes through it. An error that says the file is damaged (`SQLITE_CORRUPT`,
/// `SQLITE_NOTADB`) is thrown to the caller as before, and the first one is also kept: the marker file
/// `kioskd.sqlite.damage-seen` is written beside the database (what SQLite said), so that the next start checks
/// the whole file (`integrity_check`, not only `quick_check`) and sets it aside when it is damaged
/// (``LocalStore/open(directory:now:)``), and each ``onDamage(_:)`` action is called once — the kiosk logs it and
/// stops its services, and kioskd exits 75 for systemd to start it again (on a new database).
final class WatchedQueue: Sendable {
    let queue: DatabaseQueue
    let markerPath: String
    private let seen = Mutex<String?>(nil)
    private let actions = Mutex<[@Sendable (String) -> Void]>([])

    init(_ queue: DatabaseQueue, path: String) {
        self.queue = queue
        markerPath = Self.markerPath(of: path)
    }

    static func markerPath(of database: String) -> String { database + ".damage-seen" }

    /// What SQLite said when the damage was first met while running (nil: not met).
    var damageSeen: String? { seen.withLock { $0 } }

    /// `action` is called once, with what SQLite said, when damage is first met (at once if it was already).
    func onDamage(_ action: @escaping @Sendable (String) -> Void) {
        let already = seen.withLock { seen in
            actions.withLock { $0.append(action) }
            return seen
        }
        if let already { action(already) }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try watching { try queue.read(body) }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try watching { try queue.write(body) }
    }

    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try watching { try queue.writeWithoutTransaction(body) }
    }

    private func watching<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as DatabaseError where LocalStore.isDamage(error) {
            noteDamage(error.message ?? "\(error.resultCode)")
            throw error
        }
    }

    private func noteDamage(_ message: String) {
        let first = seen.withLock { seen -> Bool in
            guard seen == nil else { return false }
            seen = message
            return true
        }
        guard first else { return }
        try? Data(message.utf8).write(to: URL(fileURLWithPath: markerPath), options: .atomic)
        for action in actions.withLock({ $0 }) { action(message) }
    }
}
