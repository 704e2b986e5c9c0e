/// KioskStation: the station runtime as a library, what `kioskd` and the tests both build.
///
/// Owns the printer station loop, the local store (SQLite), the configuration and the local HTTP endpoint (the door
/// station and the sync client join them),
/// and the test ticket that `kioskd print-test` and the benchmarks print.
///
/// Must not touch: C modules or device nodes directly — hardware goes through `Drivers`.
public enum KioskStation {}
