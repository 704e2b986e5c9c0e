import Drivers
import Foundation
import Glibc
import Logging
import SystemPackage

/// Serves the emulator on an open character device until stopped: the host side of a pty pair, or a USB
/// gadget's `/dev/g_printer0`. End of file and I/O errors (no client yet, cable unplugged) are waited out.
public final class DescriptorEndpoint: Sendable {
    public let name: String
    private let worker: WorkerThread

    /// Opens `path` read-write and serves it.
    public convenience init(emulator: PrinterEmulator, path: String, logger: Logger) throws(SystemCallError) {
        let raw = try syscall("open \(path)") { Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        self.init(emulator: emulator, fd: FileDescriptor(rawValue: raw), name: path, logger: logger)
    }

    /// Serves an already open descriptor, which it then owns.
    public init(emulator: PrinterEmulator, fd: FileDescriptor, name: String, logger: Logger) {
        self.name = name
        worker = WorkerThread(name: "escpos-\(name)") { worker in
            let why = StreamPump(fd: fd, name: name).run(emulator: emulator, worker: worker, hangupIsEOF: false)
            logger.info("endpoint stopped", metadata: ["device": "\(name)", "why": "\(why)"])
            try? fd.close()
        }
    }

    public func stop() {
        worker.stop()
    }
}
