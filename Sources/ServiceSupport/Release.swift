import Foundation

/// Which release a program is, for `--version` and the logs: the series (major.minor) the source says, and,
/// when it runs from the package, the package's full version (`Scripts/build-deb.sh` makes it the series and
/// the commit count, and writes it to ``packageVersionFile``).
public enum Release {
    /// Raised by hand when a release changes what kiosks and servers say to each other.
    public static let series = "0.1"
    public static let packageVersionFile = "/usr/share/clup-kiosk/version"

    /// The package's version when this program is the package's (in /usr/bin) and the file says the same
    /// series; else the series, built from source.
    public static var version: String {
        guard let text = try? String(contentsOfFile: packageVersionFile, encoding: .utf8) else {
            return "\(series) (built from source)"
        }
        let packaged = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard packaged.hasPrefix(series + "."), packaged.utf8.count <= 64,
            let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            program.hasPrefix("/usr/bin/")
        else { return "\(series) (built from source)" }
        return packaged
    }
}
