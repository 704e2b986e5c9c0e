import CLinuxShims
import ServiceLifecycle

/// Gives the memory a daemon freed back to the system every `interval` (`malloc_trim`).
///
/// A kiosk allocates and frees small things all day (every print, poll, sync page) on several threads, and
/// glibc keeps what was freed in per-thread arenas for later: a profile of a day of tear-offs shows ~4 MB
/// of live heap while resident memory creeps up by megabytes of freed, retained pages. On a small box that
/// looks like a leak to whoever watches it. Trimming costs a few milliseconds a minute; fewer arenas
/// (``limitArenas(_:)``, called before the daemon starts its threads) leave less to trim.
public struct HeapTrim: Service {
    let interval: Duration

    public init(interval: Duration = .seconds(30)) {
        self.interval = interval
    }

    /// At most `count` malloc arenas: a daemon with a dozen threads but little contention gains nothing from
    /// glibc's default of eight per core, and each arena keeps its own freed pages.
    public static func limitArenas(_ count: Int32) {
        _ = CLinuxShims_limit_malloc_arenas(count)
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            guard (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: interval) })) != nil else {
                return
            }
            _ = CLinuxShims_malloc_trim(0)
        }
    }
}
