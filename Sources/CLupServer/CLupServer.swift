/// CLupServer: the central server as a library — what `clup-server` runs, and what `kiosk-demo`, `clup-sim` and
/// the tests embed.
///
/// Owns every store's event log and its folded queue in memory (`Log/`: ``StoreLogs``), its storage on SQLite or
/// PostgreSQL (`Storage/`: ``ServerStorage``), the HTTP API under `/v1` and the sync routes (`API/`), the
/// shoppers' pages and the managers' console (`Pages/`, `Console/`), who may call what (`Auth/`), the limits a
/// public server needs (`Limits/`), the long-running duties (`Services/`: no-show expiry, the business day's
/// start, the wait model's refresh, the kept state, retention, following other replicas) and TLS (`TLS/`).
///
/// A request flows one way: a route decodes it and checks who asks, calls the logs or a service, which writes
/// through storage. Storage knows no HTTP: it throws ``StorageRefusal``, which the routes answer. The queue's
/// rules (the fold, admission, the wait estimate, how a ticket is issued: ``ServerIssue``) are KioskCore's, the
/// same on every kiosk.
///
/// Must not touch: printers, scanners or anything of `KioskStation` and `Drivers`.
public enum CLupServer {}
