import Drivers
import Foundation
import Glibc
import Logging
import SystemPackage

/// The emulator's control language, one command per line, for people (stdin) and programs (a TCP port):
///
///     take                      the customer takes the ticket
///     paper-near-end on|off     paper-end on|off     cover on|off     offline on|off     cutter-error on|off
///     status                    conditions the printer reports now
///     tickets                   how many tickets were cut, the last one's PNG and when it was cut (ms since 1970)
///     retracted                 how many tickets the presenter pulled back in, and their numbers (1 = first cut)
///
/// Every command gets one line back: `ok ...` or `error: ...`.
public enum EmulatorControl {
    public static func execute(_ line: String, on emulator: PrinterEmulator) -> String {
        let command = line.trimmingCharacters(in: .whitespacesAndNewlines)
        switch command.lowercased() {
        case "":
            return "ok"
        case "status":
            let active = emulator.activeConditions.sorted().map(\.rawValue)
            return "ok " + (active.isEmpty ? "ready" : active.joined(separator: ","))
        case "tickets":
            guard let last = emulator.tickets.last else { return "ok \(emulator.ticketCount) -" }
            let cutMs = Int64((last.cutDate.timeIntervalSince1970 * 1000).rounded(.down))
            return "ok \(emulator.ticketCount) \(last.pngPath ?? "-") \(cutMs)"
        case "retracted":
            let numbers = emulator.retractedTickets.map { String($0.number) }
            return "ok \(numbers.count)" + (numbers.isEmpty ? "" : " " + numbers.joined(separator: ","))
        case "help":
            return "ok take | paper-near-end on|off | paper-end on|off | cover on|off | offline on|off | "
                + "cutter-error on|off | status | tickets | retracted"
        default:
            guard let event = PhysicalEvent(command: command) else {
                return "error: unknown command '\(command)' — try: help"
            }
            emulator.simulate(event)
            return "ok \(event)"
        }
    }
}

/// Serves ``EmulatorControl`` on a loopback TCP port, one line per command, several clients in turn.
public final class ControlEndpoint: Sendable {
    public let port: Int
    private let worker: WorkerThread

    public init(emulator: PrinterEmulator, port: Int = 0, logger: Logger) throws(SystemCallError) {
        let listener = try ListeningSocket(host: "127.0.0.1", port: port)
        self.port = listener.port
        worker = WorkerThread(name: "escpos-control") { worker in
            defer { listener.close() }
            while !worker.isStopping {
                guard let client = listener.accept(timeout: .milliseconds(50)) else { continue }
                Self.serve(client, emulator: emulator, worker: worker)
                try? client.close()
            }
        }
    }

    private static func serve(_ client: FileDescriptor, emulator: PrinterEmulator, worker: WorkerThread) {
        let io = DescriptorIO(fd: client, device: "control client")
        var pending: [UInt8] = []
        while !worker.isStopping {
            guard let bytes = try? io.read(timeout: .milliseconds(50)) else { return }
            pending += bytes
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeFirst(newline + 1)
                let answer = EmulatorControl.execute(line, on: emulator) + "\n"
                guard (try? io.writeAll(Array(answer.utf8), timeout: .seconds(1))) != nil else { return }
            }
            if pending.count > 4096 { return }
        }
    }

    public func stop() {
        worker.stop()
    }
}
