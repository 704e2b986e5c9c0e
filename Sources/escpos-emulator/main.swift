import ArgumentParser
import DeviceEmulators
import Drivers
import Foundation
import Glibc
import Logging

/// `escpos-emulator`: a virtual ESC/POS printer on TCP, a pty, or a character device (a USB gadget).
struct EscPosEmulatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "escpos-emulator",
        abstract: "A virtual ESC/POS thermal printer that renders tickets to PNG and answers status requests.",
        discussion: """
            Commands on standard input or the control port, one per line: take, paper-near-end on|off,
            paper-end on|off, cover on|off, offline on|off, cutter-error on|off, status, tickets.
            """
    )

    @Option(help: "Printer profile to behave like (\(PrinterProfile.bundledIDs.joined(separator: ", "))).")
    var profile = "citizen-ppu-700"

    @Option(help: "Another directory to look for profile files in.")
    var profileDir: [String] = []

    @Option(help: "Serve on this TCP port (0 picks a free one).")
    var tcp: Int?

    @Option(help: "Address to listen on for --tcp.")
    var host = "127.0.0.1"

    @Option(help: "Create a pty and a symlink to its slave at this path (a serial printer).")
    var pty: String?

    @Option(help: "Serve an existing character device, e.g. /dev/g_printer0 of a USB printer gadget.")
    var device: String?

    @Option(help: "Serve the control language on this loopback TCP port.")
    var control: Int?

    @Option(help: "Write each cut ticket as PNG here.")
    var out = "out/emulator"

    @Flag(help: "Do not print a text preview of each ticket.")
    var quiet = false

    func validate() throws {
        if tcp == nil && pty == nil && device == nil {
            throw ValidationError("give at least one of --tcp PORT, --pty PATH, --device PATH")
        }
    }

    func run() throws {
        // Block the stop signals before any thread starts, so only sigwait below sees them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "escpos-emulator")
        logger.logLevel = .notice
        let printerProfile = try PrinterProfile.load(named: profile, extraDirectories: profileDir)
        let emulator = try PrinterEmulator(profile: printerProfile, outputDirectory: out, logger: logger)
        let quiet = self.quiet
        emulator.onTicket { ticket in
            var text = "ticket \(ticket.number): \(ticket.pngPath ?? "(not saved)") (\(ticket.bytes.count) bytes)\n"
            if !quiet {
                text += ticket.text.map { "  | \($0)" }.joined(separator: "\n") + "\n"
                text += ticket.qrCodes.map { "  qr \($0)\n" }.joined()  // what a scanner reads from it
            }
            say(text, newline: false)
        }

        var stops: [() -> Void] = []
        say("emulating \(printerProfile.name) (\(printerProfile.id)), tickets go to \(out)/")
        if let tcp {
            let endpoint = try TCPEndpoint(emulator: emulator, host: host, port: tcp, logger: logger)
            say("tcp \(host):\(endpoint.port)")
            stops.append(endpoint.stop)
        }
        if let pty {
            let endpoint = try PtyEndpoint(emulator: emulator, linkPath: pty, logger: logger)
            say("pty \(endpoint.slavePath) linked at \(pty)")
            stops.append(endpoint.stop)
        }
        if let device {
            let endpoint = try DescriptorEndpoint(emulator: emulator, path: device, logger: logger)
            say("device \(device)")
            stops.append(endpoint.stop)
        }
        if let control {
            let endpoint = try ControlEndpoint(emulator: emulator, port: control, logger: logger)
            say("control 127.0.0.1:\(endpoint.port)")
            stops.append(endpoint.stop)
        }
        say("ready")

        let stdinReader = Thread {
            while let line = readLine() {
                say(EmulatorControl.execute(line, on: emulator))
            }
        }
        stdinReader.start()

        var received: CInt = 0
        sigwait(&stopSignals, &received)
        for stop in stops { stop() }
        say("stopped (\(emulator.ticketCount) tickets)")
    }
}

/// Writes a line to standard output at once (it may be a pipe read by a test or `make demo`).
func say(_ text: String, newline: Bool = true) {
    FileHandle.standardOutput.write(Data((newline ? text + "\n" : text).utf8))
}

EscPosEmulatorCommand.main()
