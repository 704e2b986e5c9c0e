import Foundation
import GRDB

@testable import KioskStation
@testable import StationStore

/// What a worn card does to a kiosk's database, for the tests of its recovery.
extension LocalStore {
    /// Opens the database at `path` and closes it: SQLite folds the write-ahead log into the file and removes it.
    static func checkpoint(_ path: String) throws {
        let store = try LocalStore(path: path)
        try store.db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Overwrites with garbage every page of the named tables (and their indexes) in the database at `path`,
    /// found with SQLite's `dbstat`; returns how many pages. The database must have no write-ahead log.
    static func overwritePages(of tables: [String], in path: String) throws -> Int {
        let (pages, size): ([Int], Int) = try DatabaseQueue(path: path).read { db in
            let marks = databaseQuestionMarks(count: tables.count)
            let pages = try Int.fetchAll(
                db,
                sql: "SELECT pageno FROM dbstat WHERE name IN (\(marks)) OR name IN "
                    + "(SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN (\(marks)))",
                arguments: StatementArguments(tables + tables)
            )
            return (pages, try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        var rng = SystemRandomNumberGenerator()
        for page in pages {
            try file.seek(toOffset: UInt64((page - 1) * size))
            try file.write(contentsOf: Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        }
        return pages.count
    }
}
