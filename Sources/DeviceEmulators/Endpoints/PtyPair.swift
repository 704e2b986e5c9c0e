import CLinuxShims
import Drivers
import Glibc
import SystemPackage

/// A pseudo-terminal pair for an emulated serial device: clients open ``path`` as they would `/dev/ttyUSB0`.
///
/// The emulator keeps one descriptor of the slave side open itself, so the line survives clients coming and
/// going (gpsfake does the same), and sets it raw so bytes pass unchanged. An optional symlink gives the line a
/// stable name, as udev does for a real device.
struct PtyPair: Sendable {
    /// The emulator's side; whoever serves the device owns and closes it.
    let master: FileDescriptor
    let slavePath: String
    let linkPath: String?
    private let keepOpen: FileDescriptor

    /// The path clients should open.
    var path: String { linkPath ?? slavePath }

    init(linkPath: String? = nil) throws(SystemCallError) {
        let (master, slave, path) = try openPseudoTerminal(masterFlags: O_NONBLOCK)
        do throws(SystemCallError) {
            var raw = termios()
            try syscall("tcgetattr") { [slave] in tcgetattr(slave, &raw) }
            cfmakeraw(&raw)
            try syscall("tcsetattr") { [slave] in tcsetattr(slave, TCSANOW, &raw) }
            if let linkPath {
                unlink(linkPath)
                try syscall("symlink \(linkPath)") { symlink(path, linkPath) }
            }
            self.slavePath = path
        } catch {
            Glibc.close(slave)
            Glibc.close(master)
            throw error
        }
        self.master = FileDescriptor(rawValue: master)
        self.keepOpen = FileDescriptor(rawValue: slave)
        self.linkPath = linkPath
    }

    /// Lets go of the line: closes the kept slave and removes the symlink (the master is its owner's to close).
    func release() {
        try? keepOpen.close()
        if let linkPath { unlink(linkPath) }
    }
}

/// Opens a new pseudo-terminal: its master (`O_RDWR | O_NOCTTY | O_CLOEXEC` and `masterFlags`) and its slave
/// side, opened as a program opens a device node; with the slave's path. The caller owns both descriptors.
public func openPseudoTerminal(
    masterFlags: CInt = 0
) throws(SystemCallError) -> (master: CInt, slave: CInt, slavePath: String) {
    let master = try syscall("posix_openpt") { CLinuxShims_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | masterFlags) }
    do throws(SystemCallError) {
        var name = [CChar](repeating: 0, count: 128)
        try syscall("ptsname") { CLinuxShims_ptsname(master, &name, name.count) }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = try syscall("open \(path)") { Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC) }
        return (master, slave, path)
    } catch {
        Glibc.close(master)
        throw error
    }
}
