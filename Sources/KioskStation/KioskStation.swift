/// KioskStation: the station runtime as a library, what `kioskd` and the tests both build.
///
/// Owns the printer station and door station loops, the local store, the sync client and the local HTTP
/// endpoints. So far it holds the test ticket that `kioskd print-test`, `make demo` and the benchmarks print.
///
/// Must not touch: C modules or device nodes directly — hardware goes through `Drivers`.
public enum KioskStation {}
