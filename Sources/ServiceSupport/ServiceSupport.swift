/// ServiceSupport: what both daemons, kioskd and clup-server, run on.
///
/// Owns the service group and its stop limits (swift-service-lifecycle; SIGTERM stops every service in order),
/// systemd's readiness and watchdog notification, the `key=value` log handler (journald priorities under
/// systemd), the wall clock that is injected everywhere time is read (``WallClock``, with a manual one for
/// tests), the change feed that wakes live pages and long-polls (``ChangeFeed``), the listening port, heap
/// trimming and the system's time zones (``TimeZoneDirectory``: Debian's tzdata read by KioskCore's parser).
///
/// Must not touch: the queue's rules (KioskCore), devices (Drivers) or either daemon's own logic.
public enum ServiceSupport {}
