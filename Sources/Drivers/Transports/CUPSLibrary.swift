import CCUPS

/// libcups, opened the first time a CUPS queue is used (`CCUPS.h`): printers on USB, serial or TCP never load
/// it. Every call to libcups goes through this table.
enum CUPSLibrary {
    /// The function table, or an error for `device` that tells the installer which package is missing.
    static func load(for device: String) throws(PrinterError) -> CCUPS_API {
        switch LibraryTable.load(CCUPS_load, library: "libcups", package: "libcups2") {
        case .success(let table): return table
        case .failure(let missing):
            throw PrinterError(.notFound, device: device, missing.message + " to print through CUPS")
        }
    }
}
