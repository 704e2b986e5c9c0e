import Foundation
import Synchronization

/// A child program talked to line by line: what the test types goes to its standard input, what it prints
/// is collected as lines (a thread reads its output, so the program never blocks on a full pipe).
final class LineProcess: Sendable {
    let process = Process()
    let input = Pipe()
    private let output = Pipe()
    private let lines = Mutex<[String]>([])
    /// Lines already returned by ``next(timeout:)``.
    private let consumed = Mutex(0)

    init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        stderrToo: Bool = false,
        terminal: PseudoTerminal? = nil
    ) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = terminal?.userSide ?? input
        process.standardOutput = output
        process.standardError = stderrToo ? output : FileHandle.standardError
        try process.run()
        let handle = output.fileHandleForReading
        let reader = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    self.lines.withLock { $0.append(line) }
                }
            }
        }
        reader.start()
    }

    /// Everything printed so far.
    var all: [String] { lines.withLock { $0 } }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next line not returned before, waiting up to `timeout` for it.
    func next(timeout: Duration = .seconds(20)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let index = consumed.withLock { $0 }
            if let line = lines.withLock({ index < $0.count ? $0[index] : nil }) {
                consumed.withLock { $0 += 1 }
                return line
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Skips lines until one contains `text`; that line, or nil after `timeout`.
    func line(containing text: String, timeout: Duration = .seconds(20)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let line = await next(timeout: deadline - ContinuousClock.now) else { return nil }
            if line.contains(text) { return line }
        }
        return nil
    }

    /// Sends a command and returns the one line it answers with.
    func ask(_ command: String, timeout: Duration = .seconds(30)) async -> String? {
        send(command)
        return await next(timeout: timeout)
    }

    /// SIGINT (as Ctrl-C), then the exit status once it ended within `timeout`, else kills it and returns nil.
    func interrupt(timeout: Duration = .seconds(15)) async -> Int32? {
        kill(process.processIdentifier, SIGINT)
        return await waitForExit(timeout: timeout)
    }

    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning else {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }
}
