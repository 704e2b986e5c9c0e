/// KioskStation: the station runtime as a library, what `kioskd` and the tests both build.
///
/// Owns the printer and door stations, the local store (SQLite), the sync client, the configuration, the local
/// HTTP endpoint (manager page, window display, status, events, metrics) and the test ticket that
/// `kioskd print-test` and the benchmarks print.
///
/// Must not touch: C modules or device nodes directly — hardware goes through `Drivers`.
public enum KioskStation {
    /// The version kiosks report to the server (the Debian package adds the commit count: 0.1.N).
    public static let version = "0.1"
}
