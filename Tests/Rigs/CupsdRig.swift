import Foundation

/// A private CUPS scheduler for one test: its own config, spool and domain socket in a temporary directory,
/// so it never touches the machine's CUPS. Needs root (cupsd drops to its `User` for backends) and the
/// `cups` package for the socket backend.
final class CupsdRig {
    let directory: String
    let socket: String
    private let process: Process

    init() throws {
        directory = HIL.temporaryDirectory("cupsd")
        socket = "\(directory)/cups.sock"
        for sub in ["spool", "tmp", "cache", "state", "log", "root"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(sub)", withIntermediateDirectories: true)
        }
        chmod(directory, 0o755)
        try """
        Listen \(socket)
        LogLevel warn
        WebInterface No
        Browsing No
        <Location />
          Order allow,deny
          Allow all
        </Location>
        <Policy default>
          JobPrivateAccess default
          JobPrivateValues default
          SubscriptionPrivateAccess default
          SubscriptionPrivateValues default
          <Limit All>
            Order deny,allow
          </Limit>
        </Policy>
        """.write(toFile: "\(directory)/cupsd.conf", atomically: true, encoding: .utf8)
        try """
        ServerRoot \(directory)/root
        RequestRoot \(directory)/spool
        TempDir \(directory)/tmp
        CacheDir \(directory)/cache
        StateDir \(directory)/state
        AccessLog \(directory)/log/access_log
        ErrorLog \(directory)/log/error_log
        PageLog \(directory)/log/page_log
        ServerBin /usr/lib/cups
        DataDir /usr/share/cups
        SystemGroup root
        Sandboxing Relaxed
        """.write(toFile: "\(directory)/cups-files.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: HIL.which("cupsd") ?? "/usr/sbin/cupsd")
        process.arguments = ["-f", "-c", "\(directory)/cupsd.conf", "-s", "\(directory)/cups-files.conf"]
        try process.run()
        // Ready when the domain socket accepts a request (not after a fixed sleep).
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: socket),
                let result = try? HIL.run("lpstat", ["-h", socket, "-r"]), result.status == 0
            {
                return
            }
            usleep(50_000)
        }
        stop()
        throw CupsdError(message: "cupsd did not start within 15 s; see \(directory)/log/error_log")
    }

    /// Adds a raw queue (no driver: bytes pass unchanged) to a device URI.
    func addRawQueue(_ name: String, uri: String) throws {
        let result = try HIL.run("lpadmin", ["-h", socket, "-p", name, "-v", uri, "-E"])
        guard result.status == 0 else { throw CupsdError(message: "lpadmin failed: \(result.error)") }
    }

    func stop() {
        if process.isRunning {
            // SIGKILL: a child of the test runner inherits its blocked signal mask, SIGTERM included, and this
            // scheduler holds nothing worth a clean shutdown.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct CupsdError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
