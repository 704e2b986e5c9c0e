import Foundation
import Glibc
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// One appliance guest booted again and again from one disk (Tests/appliance/boot.sh): its kioskd's status
/// forwarded to a port here, its ttyS1 a socket here (a serial scanner), killed without a shutdown.
final class GuestMachine {
    let share: String
    let image: String
    let disk: String
    let statusPort: Int
    private var pid: pid_t?
    private var scanner: CInt = -1
    private(set) var booted = 0

    init(share: String) throws {
        self.share = share
        let made = try HIL.run("\(HIL.packageRoot)/Tests/appliance/image.sh", ["\(HIL.packageRoot)/.build-hil"])
        guard made.status == 0, let last = made.output.split(separator: "\n").last else {
            throw Failure("the appliance image was not made: \(made.error.suffix(2000))")
        }
        image = String(last)
        disk = "\(HIL.packageRoot)/.build-hil/appliance-cuts-\(getpid()).raw"
        let copied = try HIL.run("cp", ["--sparse=always", "\(image)/disk.raw", disk])
        guard copied.status == 0 else { throw Failure("cannot copy the disk: \(copied.error)") }
        statusPort = try HIL.freePort()
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Boots the guest (the `number`-th boot, told to the guest script as /rig/boot) and connects the scanner;
    /// `qemu` adds options (`-rtc base=…`: the board's clock).
    func boot(number: Int, qemu: [String] = []) throws {
        try "\(number)".write(toFile: "\(share)/boot", atomically: true, encoding: .utf8)
        booted = number
        let socket = "\(share)/scan.sock"
        try? FileManager.default.removeItem(atPath: socket)
        // boot.sh by system(3), its output to a file: Foundation's Process did not see it end in this process
        // (a zombie left unreaped), and qemu, still running, would hold a pipe open.
        let printed = "\(share)/boot-\(number).pid"
        let command = [
            "APPLIANCE_NETDEV=hostfwd=tcp:127.0.0.1:\(statusPort)-:18080",
            "\(HIL.packageRoot)/Tests/appliance/boot.sh", image, disk, share, "1800",
            "-chardev", "socket,id=scan,path=\(socket),server=on,wait=off", "-serial", "chardev:scan",
        ]
        .joined(separator: " ")
        let status = system("\(([command] + qemu).joined(separator: " ")) >\(printed) 2>&1")
        let text = (try? String(contentsOfFile: printed, encoding: .utf8)) ?? ""
        guard status == 0, let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure("qemu did not start: boot.sh status \(status), \(text)")
        }
        self.pid = pid
        for _ in 0..<500 where scanner < 0 {
            scanner = Self.connect(socket)
            if scanner < 0 { usleep(20_000) }
        }
        guard scanner >= 0 else { throw Failure("no scanner socket from qemu at \(socket)") }
    }

    /// A scan at the door: the code's text and the scanner's suffix (CR) on the guest's ttyS1.
    func scan(_ payload: String) {
        let bytes = Array((payload + "\r").utf8)
        _ = bytes.withUnsafeBytes { send(scanner, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The main switch: qemu is killed (boot.sh's pid is the `timeout` around it: its child first).
    func powerCut() {
        guard let pid else { return }
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({ pid_t($0) }) { kill(child, SIGKILL) }
        kill(pid, SIGKILL)
        for _ in 0..<500 where kill(pid, 0) == 0 { usleep(20_000) }
        self.pid = nil
        if scanner >= 0 { close(scanner) }
        scanner = -1
    }

    /// Waits for the guest to power itself off.
    func waitOff(timeout: Duration) -> Bool {
        guard let pid else { return true }
        let end = ContinuousClock.now + timeout
        while kill(pid, 0) == 0, ContinuousClock.now < end { usleep(100_000) }
        let off = kill(pid, 0) != 0
        if off { self.pid = nil }
        return off
    }

    func removeDisk() { try? FileManager.default.removeItem(atPath: disk) }

    /// Waits for the guest script's first boot to install the package and start kioskd (it writes
    /// install.txt last). apt unpacking a debug build's package of hundreds of MB under software emulation is
    /// most of a first boot — over 400 s on a loaded 2-core machine, where this test's kioskd then starts in
    /// seconds — and not kioskd's start, which ``CutRun/waitReady(guest:timeout:)`` times after it.
    func waitInstalled(timeout: Duration) async throws {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            // Read whole: the guest's shell creates the file, then writes its line.
            let said = read("install.txt")
            if said.hasSuffix("\n") {
                guard said.hasPrefix("installed") else { throw Failure("the package was not installed\n\(evidence())") }
                return
            }
            guard let pid, kill(pid, 0) == 0 else {
                throw Failure("the guest stopped before the package was installed\n\(evidence())")
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw Failure("the package was not installed within \(timeout) of the boot\n\(evidence())")
    }

    /// What the guest left of its last boot, for a failure's message: whether qemu still runs, what the guest
    /// script said of the install, and the ends of apt's, qemu's, the console's and kioskd's journal's output.
    func evidence() -> String {
        let running = pid.map { kill($0, 0) == 0 } ?? false
        let files = ["install.txt", "apt.log", "qemu-\(booted).log", "console-\(booted).log", "journal-\(booted).txt"]
        let tails = files.map { name in
            let text = read(name)
            return "--- \(name):\n\(text.isEmpty ? "(none)" : text.suffix(1500))"
        }
        // What the guest wrote, and when: a boot that hangs before the rig's unit writes nothing of its own.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: share).sorted()) ?? []
        let listing = names.map { name -> String in
            let attributes = try? FileManager.default.attributesOfItem(atPath: "\(share)/\(name)")
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? -1
            let age = (attributes?[.modificationDate] as? Date).map { Int(-$0.timeIntervalSinceNow) } ?? -1
            return "\(name) \(size) B \(age) s ago"
        }
        let head = "boot \(booted), qemu \(running ? "running" : "not running")"
        return (["\(head); the share: \(listing.joined(separator: ", "))"] + tails).joined(separator: "\n")
    }

    /// A file the guest wrote back to the share ("" if there is none).
    func read(_ name: String) -> String {
        (try? String(contentsOfFile: "\(share)/\(name)", encoding: .utf8)) ?? ""
    }

    func status() async -> StationStatus? { try? await HIL.status(port: statusPort) }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func connect(_ path: String) -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        return fd
    }
}

/// The customers of a power-cut run: who tore which ticket, who has been to the door, and what the server's
/// log says of them.
struct CutRun {
    let rig: EmulatorRig
    let server: ServerRig
    let store: StoreID
    /// Every torn ticket's code and QR payload, in order.
    private(set) var torn: [(code: String, payload: String)] = []
    /// Torn tickets whose holders have not been to the door yet.
    private var held: [Int] = []
    private(set) var scans = 0

    init(rig: EmulatorRig, server: ServerRig, store: StoreID) {
        self.rig = rig
        self.server = server
        self.store = store
    }

    /// kioskd up after a boot: its door reads the scanner and a ticket waits in the printer.
    func waitReady(guest: GuestMachine, timeout: Duration) async throws {
        let end = ContinuousClock.now + timeout
        var seen: StationStatus?
        while ContinuousClock.now < end {
            let status = await guest.status()
            seen = status ?? seen
            if let status, let door = status.door,
                !["starting", "disconnected"].contains(door.state),
                rig.emulator.activeConditions.contains(.ticketPresent)
            {
                return
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        let ticket = rig.emulator.activeConditions.contains(.ticketPresent)
        throw GuestMachine.Failure(
            "kioskd was not ready within \(timeout) of the boot: door \(seen?.door?.state ?? "never answered"), "
                + "printer \(seen.map { String(describing: $0.printer?.state) } ?? "never answered"), "
                + "a ticket in the printer: \(ticket)\n\(guest.evidence())"
        )
    }

    /// Customers for `duration`: a tear-off every 0.4–0.6 s, and now and then one of those holding a ticket
    /// scans it at the door.
    mutating func customers(guest: GuestMachine, for duration: Duration) async throws {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if rig.emulator.activeConditions.contains(.ticketPresent) {
                rig.emulator.simulate(.take)
                tookLast()
            }
            if !held.isEmpty, Int.random(in: 0..<3) == 0 {
                let index = held.remove(at: Int.random(in: 0..<held.count))
                guest.scan(torn[index].payload)
                scans += 1
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 400...600)))
        }
    }

    /// The torn tickets not seen at the door yet, and those scanned before whose admission the server has not
    /// got: scanned now, one every 0.3 s.
    mutating func scanHeld(guest: GuestMachine) async throws {
        let admitted = admittedCodes()
        let due = torn.indices.filter { !admitted.contains(torn[$0].code) }
        for index in due {
            guest.scan(torn[index].payload)
            scans += 1
            try await Task.sleep(for: .milliseconds(300))
        }
        held = []
    }

    /// Waits until the server's log admits every torn ticket.
    func waitAdmitted(timeout: Duration) async -> Bool {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if notAdmitted().isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(500))
        }
        return notAdmitted().isEmpty
    }

    func notAdmitted() -> [String] {
        let admitted = admittedCodes()
        return torn.map(\.code).filter { !admitted.contains($0) }
    }

    private func admittedCodes() -> Set<String> {
        guard let queue = server.queue(store) else { return [] }
        return Set(
            queue.entries.values.compactMap { entry in
                if case .admitted = entry.stage { return entry.ticket.code.description }
                return nil
            }
        )
    }

    /// The ticket just torn: the emulator's last taken one.
    private mutating func tookLast() {
        guard let ticket = rig.emulator.takenTickets.last,
            let code = ticket.text.first(where: { TicketCode($0) != nil }),
            let payload = ticket.qrCodes.first,
            !torn.contains(where: { $0.code == code })
        else { return }
        torn.append((code, payload))
        held.append(torn.count - 1)
    }
}
