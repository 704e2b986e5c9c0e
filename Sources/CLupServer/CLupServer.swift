/// CLupServer: the central server as a library — what `clup-server` runs, and what `kiosk-demo`, `clup-sim` and
/// the tests embed.
///
/// Its folders are its layers, in the order a request meets them:
/// - `Limits/`: what guards the connection and the address before routing (deadlines, pace, connections).
/// - `Routes/`, `Pages/`, `Console/`: the HTTP API under `/v1` with the sync routes, the shoppers' pages, the
///   managers' console. A route decodes, checks who asks (`Auth/`), calls one service, and encodes.
/// - `Services/`: what a request asks done (``ShopperDesk``, ``StoreOffice``, the ticket gate, the event checks).
/// - `Queues/`: every store's queue in memory, folded from its event log (``StoreQueues``).
/// - `Storage/`: SQLite or PostgreSQL behind ``ServerStorage``.
/// - `Duties/`: the long-running services of the group (no-show expiry, the business day's start, the wait
///   model's refresh, the kept state, retention, following other replicas, metrics, certificate reload).
///
/// A request flows one way: routes → services → queues → storage, never back; services refuse with ``Refusal``
/// (a status and what to fix), the one type they share with the routes. Storage knows no HTTP: it throws ``StorageRefusal``, which the routes answer. The queue's
/// rules (the fold, admission, the wait estimate, how a ticket is issued: ``ServerIssue``) are KioskCore's, the
/// same on every kiosk.
///
/// Must not touch: printers, scanners or anything of `KioskStation` and `Drivers`.
public enum CLupServer {}
