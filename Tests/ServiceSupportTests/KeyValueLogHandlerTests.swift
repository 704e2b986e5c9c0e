import Foundation
import Logging
import Synchronization
import Testing

@testable import ServiceSupport

/// Log lines are one line each, key=value, with journald's priority prefix under systemd.
struct KeyValueLogHandlerTests {
    @Test func aMessageIsOneKeyValueLine() {
        let line = KeyValueLogHandler.line(
            level: .warning,
            label: "kioskd",
            message: "printer fault",
            metadata: ["faults": "[\"cover_open\"]", "action": "close the cover\nthen wait", "code": "A042"],
            journal: true,
            now: Date(timeIntervalSince1970: 0)
        )
        #expect(
            line
                == "<4>level=warning logger=kioskd msg=\"printer fault\" action=\"close the cover\\nthen wait\" "
                + "code=A042 faults=\"[\\\"cover_open\\\"]\"\n"
        )
    }

    @Test func outsideTheJournalALineStartsWithTheTime() {
        let line = KeyValueLogHandler.line(
            level: .info,
            label: "clup-server",
            message: "started",
            metadata: [:],
            journal: false,
            now: Date(timeIntervalSince1970: 86_400.25)
        )
        #expect(line == "time=1970-01-02T00:00:00.250Z level=info logger=clup-server msg=started\n")
    }

    @Test(arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func levelsMapToSyslogPriorities(level: Logger.Level, priority: Int) {
        #expect(KeyValueLogHandler.syslogPriority(level) == priority)
    }

    @Test func controlCharactersAndEmptyValuesAreQuoted() {
        #expect(KeyValueLogHandler.quoted("") == "\"\"")
        #expect(KeyValueLogHandler.quoted("a=b") == "\"a=b\"")
        #expect(KeyValueLogHandler.quoted("\u{1}\r\t\\") == "\"\\x01\\r\\t\\\\\"")
        #expect(KeyValueLogHandler.quoted("plain-word_1.2") == "plain-word_1.2")
    }

    @Test func theHandlerMergesLoggerAndMessageMetadataAndHonoursTheLevel() {
        let written = Mutex<[String]>([])
        var handler = KeyValueLogHandler(label: "test", journal: true) { line in written.withLock { $0.append(line) } }
        handler.metadata["device"] = "entrance"
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .notice
        logger.info("not written")
        logger.notice("ticket taken", metadata: ["code": "A001"])
        #expect(
            written.withLock { $0 } == ["<5>level=notice logger=test msg=\"ticket taken\" code=A001 device=entrance\n"]
        )
    }
}
