import Foundation
import Glibc

/// Replacing a small file so that a power cut leaves the old contents or the new, never half: written to
/// `<path>.new` with `mode`, flushed, renamed over `path`, then the directory flushed.
public enum DurableFile {
    /// False when any step failed (`errno` says why); the old file is then as it was.
    public static func replace(_ path: String, with data: Data, mode: mode_t) -> Bool {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { return false }
        // open() applies the umask; a secret's file gets exactly its mode.
        fchmod(fd, mode)
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let flushed = fsync(fd) == 0
        close(fd)
        guard written == data.count, flushed, rename(temporary, path) == 0 else { return false }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        return true
    }
}
