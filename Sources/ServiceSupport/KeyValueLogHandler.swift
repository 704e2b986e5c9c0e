import Foundation
import Logging
import Synchronization

/// Logs one line per message to standard error, as `key=value` pairs: `level=warning msg="printer fault"
/// faults=[cover_open] action="close the cover"`. Under systemd (`JOURNAL_STREAM` is set) each line starts
/// with the kernel-style priority `<4>` that journald turns into the entry's priority, and has no time
/// (journald adds it); elsewhere the line starts with the time.
public struct KeyValueLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let journal: Bool
    let write: @Sendable (String) -> Void

    public init(label: String, journal: Bool, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.journal = journal
        self.write = write
    }

    /// A handler for `LoggingSystem.bootstrap`, writing to standard error.
    public static func standardError(label: String) -> KeyValueLogHandler {
        KeyValueLogHandler(
            label: label,
            journal: ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil,
            write: { line in Self.standardErrorLock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) } }
        )
    }

    /// Makes this handler the process's one logging backend (standard error) and returns the program's logger at
    /// `level` (a swift-log level name; anything else is `info`).
    public static func bootstrap(program: String, level: String) -> Logger {
        LoggingSystem.bootstrap { standardError(label: $0) }
        var logger = Logger(label: program)
        logger.logLevel = Logger.Level(rawValue: level) ?? .info
        return logger
    }

    /// Keeps lines from two threads whole.
    private static let standardErrorLock = Mutex(())

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        if let error = event.error { merged["error"] = "\(error)" }
        write(
            Self.line(
                level: event.level,
                label: label,
                message: "\(event.message)",
                metadata: merged,
                journal: journal,
                now: Date()
            )
        )
    }

    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The line for one message (with its newline).
    public static func line(
        level: Logger.Level,
        label: String,
        message: String,
        metadata: Logger.Metadata,
        journal: Bool,
        now: Date
    ) -> String {
        var fields: [String] = []
        // Milliseconds: what happened around an unplug or a tear-off is told apart by them.
        if !journal { fields.append("time=\(now.formatted(Self.timeFormat))") }
        fields.append("level=\(level.rawValue)")
        fields.append("logger=\(quoted(label))")
        fields.append("msg=\(quoted(message))")
        for key in metadata.keys.sorted() {
            fields.append("\(key)=\(quoted("\(metadata[key]!)"))")
        }
        let prefix = journal ? "<\(syslogPriority(level))>" : ""
        return prefix + fields.joined(separator: " ") + "\n"
    }

    /// sd-daemon(3) priorities: journald reads `<N>` at the start of a line as the entry's priority.
    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A value as is when it is one plain word, else in double quotes with `"`, `\` and control characters
    /// escaped, so that a message with a newline in it still makes one line.
    static func quoted(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0 != "\"" && $0 != "\\" && $0 != "=" && $0.value != 0x7F
            }
        guard !plain else { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\x%02x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
