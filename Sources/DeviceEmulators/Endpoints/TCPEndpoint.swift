import Drivers
import Foundation
import Logging
import SystemPackage

/// Serves the emulator on a TCP port like a network printer's port 9100: one client at a time, the next
/// waits in the listen backlog until the current one disconnects.
public final class TCPEndpoint: Sendable {
    public let port: Int
    private let worker: WorkerThread

    /// Listens on `host` (loopback by default) and `port` (0 picks a free one).
    public init(
        emulator: PrinterEmulator,
        host: String = "127.0.0.1",
        port: Int = 9100,
        logger: Logger
    ) throws(SystemCallError) {
        let listener = try ListeningSocket(host: host, port: port)
        let port = listener.port
        self.port = port
        worker = WorkerThread(name: "escpos-tcp-\(port)") { worker in
            defer { listener.close() }
            while !worker.isStopping {
                guard let client = listener.accept(timeout: .milliseconds(50)) else { continue }
                logger.info("client connected", metadata: ["port": "\(port)"])
                let why = StreamPump(fd: client, name: "tcp client").run(emulator: emulator, worker: worker)
                try? client.close()
                emulator.connectionClosed()
                logger.info("client disconnected", metadata: ["port": "\(port)", "why": "\(why)"])
            }
        }
    }

    /// Stops serving and closes the port (and a connected client).
    public func stop() {
        worker.stop()
    }
}
