import Foundation
import GRDB

/// Room on the state directory's file system. Nothing is handed to a customer before it is on disk, so a full
/// disk (an SD card or eMMC that fills with logs) must stop new tickets, not duplicate them, and a ticket
/// already in a customer's hand must still be recordable as taken.
///
/// Two measures: new tickets are issued only while at least ``issueThreshold`` is free; and a **reserve file**
/// (`kioskd.reserve`, ``reserveSize`` bytes of zeros, made while there is room) is given back to the file
/// system when a write fails for lack of space, so the tear-off or admission that was being recorded gets
/// its room. The reserve is made again once space returns.
extension LocalStore {
    /// Bytes kept back for the last records: a take or an admission is a few pages plus their WAL frames
    /// (about 20 KB with `synchronous=FULL`); 512 KiB records dozens of them.
    public static let reserveSize = 512 * 1024
    /// Free bytes below which no new ticket is issued: a ticket (its row, its event and their WAL frames)
    /// and its take both fit with room to spare, and a WAL checkpoint can still run.
    public static let issueThreshold: Int64 = 1024 * 1024

    var reservePath: String { (path as NSString).deletingLastPathComponent + "/kioskd.reserve" }

    /// Free bytes for the kiosk on the state directory's file system (nil when it cannot be asked).
    public func freeSpace() -> Int64? {
        let directory = (path as NSString).deletingLastPathComponent
        guard let attributes = try? FileManager.default.attributesOfFileSystem(forPath: directory),
            let free = attributes[.systemFreeSize] as? NSNumber
        else { return nil }
        return free.int64Value
    }

    /// Whether a new ticket may be issued: enough free space, and the reserve in place (made now if there is
    /// room for it and the threshold). Throws a ``StorageFull`` that says what to do.
    public func requireRoomForNewTicket() throws {
        let free = freeSpace() ?? .max
        if !FileManager.default.fileExists(atPath: reservePath) {
            guard free >= Self.issueThreshold + Int64(Self.reserveSize) else { throw StorageFull(store: self) }
            makeReserve()
            return
        }
        guard free >= Self.issueThreshold else { throw StorageFull(store: self) }
    }

    /// Writes the reserve file (best effort: a file system that refuses leaves no half file behind).
    func makeReserve() {
        let data = Data(count: Self.reserveSize)
        if !FileManager.default.createFile(atPath: reservePath + ".new", contents: data) {
            try? FileManager.default.removeItem(atPath: reservePath + ".new")
            return
        }
        try? FileManager.default.moveItem(atPath: reservePath + ".new", toPath: reservePath)
    }

    /// Gives the reserve back to the file system; true if there was one.
    public func releaseReserve() -> Bool {
        (try? FileManager.default.removeItem(atPath: reservePath)) != nil
    }

    /// Runs `write`; when it fails for lack of space, releases the reserve and runs it once more.
    public func withReserve<T>(_ write: () throws -> T) throws -> T {
        do {
            return try write()
        } catch  where Self.isOutOfSpace(error) {
            guard releaseReserve() else { throw StorageFull(store: self, cause: error) }
            do {
                return try write()
            } catch  where Self.isOutOfSpace(error) {
                throw StorageFull(store: self, cause: error)
            }
        }
    }

    /// `error` (an out-of-space failure) as the ``StorageFull`` that tells the operator what to do.
    public func storageFull(_ error: any Error) -> StorageFull {
        error as? StorageFull ?? StorageFull(store: self, cause: error)
    }

    /// SQLite's "database or disk is full", or the file system's "no space left".
    public static func isOutOfSpace(_ error: any Error) -> Bool {
        if error is StorageFull { return true }
        if let error = error as? DatabaseError {
            return error.resultCode == .SQLITE_FULL || error.extendedResultCode == .SQLITE_IOERR_WRITE
                || error.message?.contains("disk is full") == true
        }
        let ns = error as NSError
        return ns.domain == NSPOSIXErrorDomain && ns.code == Int(POSIXError.Code.ENOSPC.rawValue)
    }

    /// The state directory has no room for what must be recorded.
    public struct StorageFull: Error, CustomStringConvertible, Sendable {
        public let directory: String
        public let free: Int64?
        public let cause: String?

        init(store: LocalStore, cause: (any Error)? = nil) {
            directory = (store.path as NSString).deletingLastPathComponent
            free = store.freeSpace()
            self.cause = cause.map { "\($0)" }
        }

        /// What the operator reads on the status page and in the log.
        public var description: String {
            let room = free.map { " (\($0 / 1024) KiB free)" } ?? ""
            return "storage full — free space on \(directory)\(room): no new tickets until kioskd can record them; "
                + "it resumes by itself"
        }
    }
}
