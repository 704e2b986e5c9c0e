import Drivers
import Glibc
import Logging
import Synchronization
import SystemPackage

/// Moves bytes between one file descriptor and the emulator until stopped: what every endpoint runs on its
/// own thread. Replies and pushed status go back on the same descriptor, one whole block per write.
final class StreamPump: Sendable {
    let io: DescriptorIO
    private let writeLock = Mutex(())

    init(fd: FileDescriptor, name: String) {
        io = DescriptorIO(fd: fd, device: name)
    }

    func send(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        writeLock.withLock { _ in
            try? io.writeAll(bytes, timeout: .seconds(2))
        }
    }

    /// Serves until the other side closes or `stop` says so. Returns why it ended.
    func run(emulator: PrinterEmulator, worker: WorkerThread, hangupIsEOF: Bool = true) -> String {
        let token = emulator.attach { [self] bytes in send(bytes) }
        defer { emulator.detach(token) }
        while !worker.isStopping {
            do {
                let bytes = try io.read(timeout: .milliseconds(50))
                if !bytes.isEmpty { send(emulator.receive(bytes)) }
            } catch {
                if hangupIsEOF { return error.message }
                // A pty master reads EIO while no slave is open: wait for the next client.
                var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
                nanosleep(&pause, nil)
            }
        }
        return "stopped"
    }
}
