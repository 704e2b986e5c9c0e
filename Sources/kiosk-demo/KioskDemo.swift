import ArgumentParser
import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import KioskStation
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// `kiosk-demo`: the whole kiosk on one machine. An embedded clup-server, the kiosk in both roles (ticket
/// printer and door) syncing with it, an emulated presenter printer and an emulated serial QR scanner; the
/// keyboard plays the customers. What `make demo` runs. A program of its own, so that `kioskd` links only what a
/// store's kiosk runs (no server, no emulators).
@main
struct KioskDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk-demo",
        abstract: "Run the kiosk with emulated devices and an embedded server; the keyboard plays the customers."
    )

    @Option(help: "Where tickets (PNG) and the demo's databases go (emptied first).")
    var out = "out/demo"

    @Option(help: "Printer profile the emulator behaves like.")
    var profile = "citizen-ppu-700"

    @Option(help: "Port of the kiosk's pages: manager page, window display, status, metrics (0 picks a free one).")
    var httpPort = 8080

    @Option(
        help: """
            Port of the embedded clup-server: its shopper pages, console and API (0 picks a free one, and the \
            tickets' QR then point at clup.example instead of this server).
            """
    )
    var serverPort = 8090

    @Flag(help: "Do not open the pages in a browser.")
    var noBrowser = false

    @Flag(help: "Do not speak (the kiosk speaks on this machine's sound card, or into WAV files without one).")
    var noVoice = false

    /// The voice: on the sound card when this machine has one, else a WAV file per phrase in the demo's folder.
    func voice(out: String) -> KioskConfig.Voice {
        var voice = KioskConfig.Voice()
        voice.enabled = !noVoice
        let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        voice.output = cards.contains("]:") ? .alsa("default") : .folder("\(out)/voice")
        return voice
    }

    static let keys =
        "Enter: tear the ticket off · a: app ticket · s: scan the next ticket at the door · "
        + "x: someone leaves · p: paper out/in · c: cover open/closed · q or Ctrl-C: quit"
    /// Said after the keys when standard input is not a terminal (a pipe): a key acts once its line ends.
    static let lineModeNote = "(not a terminal: type a key, then Enter)"

    func run() async throws {
        unblockStopSignals()
        let logger = KeyValueLogHandler.bootstrap(program: "kiosk-demo", level: "warning")
        let out = URL(fileURLWithPath: out).standardizedFileURL.path
        // Both ports first: a demo that cannot listen says which and how to move it before anything runs.
        for (port, flag) in [(serverPort, "--server-port"), (httpPort, "--http-port")] {
            let setting = "\(flag) N (make demo ARGS='\(flag) N'; 0 picks a free one)"
            try PortProbe.check(host: "127.0.0.1", port: port, setting: setting)
        }
        try? FileManager.default.removeItem(atPath: out)
        let rig = try await DemoRig(
            out: out,
            profile: profile,
            httpPort: httpPort,
            serverPort: serverPort,
            voice: voice(out: out),
            logger: logger
        )
        let pocket = Pocket()
        rig.printer.onTicket { ticket in
            let lines = ticket.text.filter { !$0.isEmpty }.map { "  │ \($0)" }.joined(separator: "\n")
            say("\nticket printed → \(ticket.pngPath ?? "?")\n\(lines)")
        }
        let group = rig.kiosk.serviceGroup(logger: logger)
        say("CLup kiosk demo — \(DemoAPI.storeName), capacity \(DemoRig.capacity)")
        say(
            "  printer: \(rig.profileName) emulated on tcp://127.0.0.1:\(rig.printerEndpoint.port), tickets in \(out)/tickets"
        )
        say("  scanner: emulated on \(rig.scanner.path)")
        switch rig.kiosk.voice?.config.output {
        case .alsa(let device)?: say("  voice:   espeak-ng on the sound card (ALSA \(device)); --no-voice turns it off")
        case .folder(let folder)?: say("  voice:   no sound card here: each phrase is a WAV file in \(folder)")
        case nil: say("  voice:   off")
        }
        say("  server:  embedded clup-server at \(rig.serverURL)/v1, store \(rig.store.uuidString)")
        say("  shopper: \(rig.serverURL)/?q=demo   (take or book a ticket; a paper ticket's QR opens its page here)")
        say(
            "  console: \(rig.serverURL)/console   (manager \(DemoAPI.manager) / \(DemoAPI.password); "
                + "system manager: the admin token \(rig.adminToken))"
        )
        let singleKeys = Terminal.enterSingleKeyMode()
        let legend = singleKeys ? Self.keys : "\(Self.keys)\n\(Self.lineModeNote)"
        let keyboard = Thread { Self.keyboard(rig: rig, pocket: pocket, group: group, singleKeys: singleKeys) }
        keyboard.start()
        Task {
            guard let port = rig.kiosk.httpPort.wait() else { return }
            let base = "http://127.0.0.1:\(port)"
            say(
                "  pages:   manager \(base)/   window display \(base)/display   status \(base)/status   metrics \(base)/metrics"
            )
            say("\n\(legend)")
            if !noBrowser {
                openInBrowser(["\(base)/display", "\(base)/", "\(rig.serverURL)/?q=demo", "\(rig.serverURL)/console"])
            }
        }
        try await group.run()
        await rig.stop()
        say("demo stopped")
    }

    /// Reads keys until `q` or the end of input; each key is one customer's (or the manager's) action. On a
    /// terminal a key acts at once; otherwise a line is one key (an empty line is Enter).
    static func keyboard(rig: DemoRig, pocket: Pocket, group: ServiceGroup, singleKeys: Bool) {
        var paperOut = false
        var coverOpen = false
        let nextKey: () -> String? =
            singleKeys
            ? { Terminal.readKey().map { $0 == "\n" ? "" : String($0) } }
            : { readLine()?.trimmingCharacters(in: .whitespaces) }
        while let key = nextKey() {
            switch key {
            case "q":
                Task { await group.triggerGracefulShutdown() }
                return
            case "p":
                paperOut.toggle()
                rig.printer.simulate(.paperEnd(paperOut))
                say(paperOut ? "paper ran out (see the window display)" : "paper loaded")
            case "c":
                coverOpen.toggle()
                rig.printer.simulate(.coverOpen(coverOpen))
                say(coverOpen ? "cover opened" : "cover closed")
            case "a":
                Task {
                    do {
                        let ticket = try await rig.takeAppTicket()
                        pocket.add(code: ticket.code, qr: ticket.qr)
                        say("app ticket \(ticket.code) taken on a phone: it joins the same queue")
                    } catch {
                        say("app ticket failed: \(error)")
                    }
                }
            case "s":
                scan(rig: rig, pocket: pocket)
            case "x":
                do {
                    say(try rig.kiosk.door!.customerExited() ? "someone left the store" : "nobody is inside")
                } catch {
                    say("could not record the exit: \(error)")
                }
            case "":
                tearOff(rig: rig, pocket: pocket)
            case let other where other.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "?" }):
                say(singleKeys ? keys : "\(keys)\n\(lineModeNote)")
            default:
                break  // a terminal's escape sequence (an arrow key): not a customer's action
            }
        }
    }

    /// The customer tears the waiting ticket off and keeps it in their pocket.
    static func tearOff(rig: DemoRig, pocket: Pocket) {
        guard rig.printer.activeConditions.contains(.ticketPresent), let ticket = rig.printer.tickets.last,
            let qr = ticket.qrCodes.first
        else {
            say("no ticket waits in the printer right now")
            return
        }
        let code = rig.kiosk.printer?.status.waitingTicket ?? "?"
        rig.printer.simulate(.take)
        pocket.add(code: code, qr: qr)
        say("ticket \(code) torn off: it joins the queue, the next one prints")
    }

    /// The earliest ticket in the pocket is shown to the door's scanner; prints what the door decided.
    static func scan(rig: DemoRig, pocket: Pocket) {
        guard let ticket = pocket.next() else {
            say("nobody holds a ticket: tear one off (Enter) or take an app ticket (a) first")
            return
        }
        let door = rig.kiosk.door!
        let before = door.status.admitted + door.status.refused
        do {
            try rig.scanner.scan(ticket.qr)
        } catch {
            say("scanner emulator: \(error.message)")
            return
        }
        let deadline = ContinuousClock.now + .seconds(3)
        while door.status.admitted + door.status.refused == before && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        guard let decision = door.status.last, door.status.admitted + door.status.refused > before else {
            say("door: no decision yet for \(ticket.code)")
            return
        }
        let mark = decision.reason == "admit" ? "✔" : "✘"
        let message =
            decision.message.hasPrefix("\(ticket.code): ")
            ? String(decision.message.dropFirst(ticket.code.count + 2)) : decision.message
        say("door: \(ticket.code) \(mark) \(message)")
        // What the entrance's light shows for it (a moment later: the light has a thread of its own).
        Thread.sleep(forTimeInterval: 0.05)
        say("light: \(door.status.light)")
        // Turned away for now: the customer keeps the ticket and comes back.
        if ["store_full", "not_your_turn"].contains(decision.reason) { pocket.putBack(ticket) }
    }

    /// Opens the pages when there is a desktop to open them on.
    func openInBrowser(_ urls: [String]) {
        let environment = ProcessInfo.processInfo.environment
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil,
            let opener = ["/usr/bin/xdg-open", "/usr/bin/sensible-browser"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            say("  (no desktop here: open the pages above in a browser)")
            return
        }
        for url in urls {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: opener)
            process.arguments = [url]
            try? process.run()
        }
    }
}

/// Tickets the demo's customers hold (paper torn off, or on a phone), first come first.
final class Pocket: Sendable {
    struct Held: Sendable {
        let code: String
        let qr: String
    }

    private let held = Mutex<[Held]>([])

    func add(code: String, qr: String) { held.withLock { $0.append(Held(code: code, qr: qr)) } }
    func next() -> Held? { held.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
    func putBack(_ ticket: Held) { held.withLock { $0.insert(ticket, at: 0) } }
}

/// Writes a line to standard output at once.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
