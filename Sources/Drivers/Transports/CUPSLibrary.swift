import CCUPS

/// libcups, opened the first time a CUPS queue is used (`CCUPS.h`): printers on USB, serial or TCP never load
/// it. Every call to libcups goes through this table.
enum CUPSLibrary {
    /// The function table, or an error for `device` that tells the installer which package is missing.
    static func load(for device: String) throws(PrinterError) -> CCUPS_API {
        var failure: UnsafePointer<CChar>?
        guard let table = CCUPS_load(&failure) else {
            throw PrinterError(
                .notFound,
                device: device,
                "cannot load libcups (\(failure.map { String(cString: $0) } ?? "unknown error")) — install "
                    + "Debian's libcups2 to print through CUPS (apt install libcups2)"
            )
        }
        return table.pointee
    }
}
