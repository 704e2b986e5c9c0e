/// A C module's table of functions from a library opened at first use (CCUPS, CESpeak, CALSA, CGPIOD), or
/// why it cannot be had, in words that name the Debian package to install.
enum LibraryTable {
    /// `loader`'s table, or the message: "cannot load libasound (…) — install Debian's libasound2 (apt install
    /// libasound2)".
    static func load<Table>(
        _ loader: (UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> UnsafePointer<Table>?,
        library: String,
        package: String
    ) -> Result<Table, Missing> {
        var failure: UnsafePointer<CChar>?
        guard let table = loader(&failure) else {
            let why = failure.map { String(cString: $0) } ?? "unknown error"
            return .failure(
                Missing(
                    message: "cannot load \(library) (\(why)) — install Debian's \(package) (apt install \(package))"
                )
            )
        }
        return .success(table.pointee)
    }

    struct Missing: Error {
        let message: String
    }
}
