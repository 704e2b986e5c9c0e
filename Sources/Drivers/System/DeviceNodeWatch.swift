import Glibc

/// Waits for a device node (`/dev/clup/scanner`, `/dev/ttyACM0`, `/dev/usb/lp0`) to appear, with inotify on its
/// folder: udev makes the node and its links when the device is plugged in. When the folder itself is missing
/// (udev removes `/dev/clup` with its last link), its parent is watched, and the caller's next attempt waits
/// for the node. Where inotify is not available, a wait is a plain sleep.
public final class DeviceNodeWatch: ArrivalWatch {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Meant for after an attempt found no node (`notFound`): a node there now has just appeared.
    public func waitForArrival(timeout: Duration, shouldStop: () -> Bool) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let fd = inotify_init1(CInt(IN_CLOEXEC | IN_NONBLOCK))
        defer { if fd >= 0 { Glibc.close(fd) } }
        let watched = fd >= 0 ? watchNearestFolder(fd) : nil
        if arrived(watching: watched) { return true }
        while !shouldStop() {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let slice = min(left, .milliseconds(100))
            guard fd >= 0, watched != nil else {
                var pause = timespec(tv_sec: 0, tv_nsec: Int(slice.milliseconds) * 1_000_000)
                nanosleep(&pause, nil)
                continue
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, CInt(max(slice.milliseconds, 1))) > 0 else { continue }
            var events = [UInt8](repeating: 0, count: 4096)
            _ = events.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if arrived(watching: watched) { return true }
        }
        return false
    }

    /// The node is there, or (watching a folder above the node's) the next folder down is: the caller's next
    /// attempt watches from there.
    private func arrived(watching folder: String?) -> Bool {
        if access(path, F_OK) == 0 { return true }
        guard let folder, folder != parent(of: path) else { return false }
        var below = parent(of: path)
        while parent(of: below) != folder && !below.isEmpty { below = parent(of: below) }
        return !below.isEmpty && access(below, F_OK) == 0
    }

    /// Watches the node's folder, or the nearest folder above it that exists; returns the one it watches.
    private func watchNearestFolder(_ fd: CInt) -> String? {
        let mask = UInt32(IN_CREATE | IN_MOVED_TO)
        var folder = parent(of: path)
        while !folder.isEmpty {
            if inotify_add_watch(fd, folder, mask) >= 0 { return folder }
            folder = parent(of: folder)
        }
        return nil
    }

    private func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return path == "/" ? "" : "/" }
        return String(path[..<slash])
    }
}
