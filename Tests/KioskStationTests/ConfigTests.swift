import Foundation
import KioskCore
import ServiceSupport
import StrictTOML
import Testing

@testable import Drivers
@testable import KioskStation

@Suite struct ConfigTests {
    static var shipped: String { "\(packageRoot)/config/kioskd.toml" }
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    @Test func theShippedFileParsesToTheDefaults() throws {
        let config = try KioskConfig.load(path: Self.shipped)
        var expected = KioskConfig(store: .init(id: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!))
        expected.device.id = config.device.id
        #expect(config == expected)
    }

    /// Every key in the shipped file, uncommented, is known and holds the documented default.
    @Test func everyCommentedKeyIsKnownAndItsDefault() throws {
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#"), trimmed.dropFirst().first?.isLetter == true, trimmed.contains(" = ") {
                return String(trimmed.dropFirst())
            }
            return String(line)
        }.joined(separator: "\n").replacingOccurrences(
            of: "\"<hostname>\"",
            with: "\"\(ProcessInfo.processInfo.hostName)\""
        )
        let config = try KioskConfig.parse(uncommented, file: "uncommented")
        var expected = KioskConfig(store: .init(id: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!))
        expected.device.id = ProcessInfo.processInfo.hostName
        #expect(config == expected)
        #expect(uncommented.components(separatedBy: " = ").count > 20)
    }

    func error(_ text: String) -> TOMLFileError? {
        do {
            _ = try KioskConfig.parse(text, file: "k.toml")
            return nil
        } catch {
            return error
        }
    }

    let minimal = "[store]\nid = \"6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90\"\n"

    @Test func brokenConfigurationsNameTheKey() {
        #expect(error("")?.key == "store")
        // Without an id the box pairs (a server, no credential) or `kioskd run` refuses the placeholder.
        #expect(error("[store]\nname = \"x\"\n") == nil)
        #expect((try? KioskConfig.parse("[store]\n", file: "k.toml"))?.store.id == KioskConfig.placeholderStore)
        let pairing = try? KioskConfig.parse("[store]\n[sync]\nserver = \"https://clup.example\"\n", file: "k.toml")
        #expect(pairing?.sync.pairs == true)
        let enrolled = try? KioskConfig.parse(
            minimal + "[sync]\nserver = \"https://clup.example\"\ncredential = \"c\"\n",
            file: "k.toml"
        )
        #expect(enrolled?.sync.pairs == false)
        #expect(error("[store]\nid = \"nope\"\n")?.key == "store.id")
        #expect(error(minimal + "[printer]\nadress = \"usb://\"\n")?.key == "printer.adress")
        #expect(error(minimal + "[printer]\naddress = \"lpt://1\"\n")?.key == "printer.address")
        #expect(error(minimal + "[printer]\ncode_prefix = \"a1\"\n")?.key == "printer.code_prefix")
        #expect(error(minimal + "[printer]\npoll_interval_ms = 1\n")?.message.contains("out of range") == true)
        #expect(error(minimal + "[printer]\ntake_sensor = \"laser\"\n")?.key == "printer.take_sensor")
        #expect(error(minimal + "[store]\n")?.message.contains("syntax error") == true)
        #expect(
            error(minimal.replacingOccurrences(of: "]\n", with: "]\nstatus_url = \"https://x/\"\n"))?.key
                == "store.status_url"
        )
        #expect(error(minimal + "[log]\nlevel = \"loud\"\n")?.key == "log.level")
        #expect(error(minimal + "[door]\nexit_input = \"/dev/input/event3\"\n")?.key == "door.exit_input")
        #expect(error(minimal + "[door]\nexit_key = \"KEY_HYPER\"\n")?.message.contains("evtest") == true)
        #expect(
            error(minimal + "[door]\nscanner = \"evdev:///dev/input/event2\"\nfeedback_admit = \"\\u0007\"\n")?.key
                == "door.feedback_admit"
        )
        #expect(error(minimal + "[voice]\noutput = \"hw:1,0\"\n")?.message.contains("alsa:hw:1,0") == true)
        #expect(error(minimal + "[voice]\nlanguages = [\"fr\"]\n")?.message.contains("\"it\"") == true)
        #expect(error(minimal + "[voice]\nlanguages = []\n")?.key == "voice.languages")
        #expect(error(minimal + "[voice]\nvolume = 150\n")?.key == "voice.volume")
        // A password typed in clear, or a hash cut short: the way to make one, not a silent open page.
        #expect(
            error(minimal + "[http]\nmanager_password = \"hunter22\"\n")?.message.contains("manager-password") == true
        )
        #expect(error(minimal + "[http]\nmanager_password = \"scrypt:AAAA:BBBB\"\n")?.key == "http.manager_password")
    }

    /// The manager password's line, as `kioskd manager-password` prints it, parses to a hash that matches the
    /// password and no other.
    @Test func theManagerPasswordIsKeptAsAHash() throws {
        let line = try PasswordHash(password: "shift manager 7").text
        #expect(line.hasPrefix("scrypt:") && !line.contains("shift"))
        let config = try KioskConfig.parse(minimal + "[http]\nmanager_password = \"\(line)\"\n", file: "k.toml")
        let hash = try #require(config.http.managerPassword)
        #expect(hash.matches("shift manager 7") && !hash.matches("shift manager 8"))
    }

    @Test func doorLines() throws {
        let text =
            minimal + """
                [door]
                gpio_chip = "gpiochip2"
                green_line = "DOOR_GREEN"
                red_line = "27"
                gate_line = "gpiochip0:4"
                exit_beam = "22"
                exit_beam_outside = "23"
                lines_active_low = true

                """
        let lines = try KioskConfig.parse(text, file: "kioskd.toml").door.lines
        #expect(lines.signals[.green] == GPIOLineAddress(chip: "gpiochip2", line: .name("DOOR_GREEN")))
        #expect(lines.signals[.red] == GPIOLineAddress(chip: "gpiochip2", line: .offset(27)))
        #expect(lines.signals[.gate] == GPIOLineAddress(chip: "gpiochip0", line: .offset(4)))
        #expect(lines.beams.count == 2 && lines.signalsActiveLow && !lines.beamsActiveLow)
        #expect(error(minimal + "[door]\nexit_beam_outside = \"5\"\n")?.message.contains("needs exit_beam") == true)
        #expect(error(minimal + "[door]\ngreen_line = \"5\"\nred_line = \"gpiochip0:5\"\n")?.key == "door.gpio_chip")
        #expect(error(minimal + "[door]\ngate_line = \"gpiochip0:\"\n")?.message.contains("gpioinfo") == true)
        #expect(error(minimal + "[door]\ngate_pulse_ms = 5\n")?.key == "door.gate_pulse_ms")
    }

    @Test func voiceSettings() throws {
        let text = minimal + "[voice]\nenabled = true\noutput = \"file:/tmp/v\"\nlanguages = [\"it\", \"en\", \"it\"]\n"
        let voice = try KioskConfig.parse(text, file: "kioskd.toml").voice
        #expect(voice.enabled && voice.output == .folder("/tmp/v") && voice.languages == [.italian, .english])
        #expect(try KioskConfig.parse(minimal, file: "kioskd.toml").voice.output == .alsa("default"))
    }

    /// The credential never travels in clear by accident: plain HTTP only to this machine or when the
    /// operator says `insecure = true`; a CA file must hold a certificate.
    /// One loopback test for the sync's plain HTTP, the manager page's "the box itself" and the start's notice.
    @Test func loopbackHostsAreThisMachineOnly() {
        for host in ["localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "::ffff:127.0.0.1"] {
            #expect(KioskConfig.isLoopback(host: host), "\(host)")
        }
        for host in ["192.0.2.2", "0.0.0.0", "::", "::ffff:10.0.0.1", "127.example", "localhost.example", ""] {
            #expect(!KioskConfig.isLoopback(host: host), "\(host)")
        }
    }

    @Test func plainHTTPOnlyToThisMachineOrWhenSaidInsecure() throws {
        func sync(_ lines: String) -> String { minimal + "[sync]\ncredential = \"c\"\n" + lines }
        let refused = error(sync("server = \"http://clup.example\"\n"))
        #expect(refused?.key == "sync.server")
        #expect(refused?.message.contains("use https://") == true, "\(String(describing: refused))")
        for local in ["http://127.0.0.1:8090", "http://localhost:8090", "http://[::1]:8090", "http://127.3.2.1"] {
            #expect(error(sync("server = \"\(local)\"\n")) == nil, "\(local)")
        }
        #expect(error(sync("server = \"http://10.0.0.5\"\ninsecure = true\n")) == nil)
        #expect(error(sync("server = \"https://clup.example\"\n")) == nil)
        #expect(
            error(sync("server = \"https://clup.example\"\nca_file = \"/nonexistent/ca.pem\"\n"))?.key == "sync.ca_file"
        )
        let notPEM = NSTemporaryDirectory() + "not-a-ca-\(UUID().uuidString).pem"
        try "hello\n".write(toFile: notPEM, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: notPEM) }
        let empty = error(sync("server = \"https://clup.example\"\nca_file = \"\(notPEM)\"\n"))
        #expect(empty?.key == "sync.ca_file")
        #expect(empty?.message.contains("CA") == true, "\(String(describing: empty))")
    }

    /// The credential lets its holder add events to the store: kioskd reads it only from a file no one else
    /// can read, and refuses it written in a configuration everyone can.
    @Test func theCredentialIsReadOnlyFromPrivateFiles() throws {
        let directory = NSTemporaryDirectory() + "credential-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secret = "\(directory)/credential"
        try "k1.s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let config = "\(directory)/kioskd.toml"
        func load(_ sync: String, configMode: Int = 0o644, secretMode: Int = 0o600) throws(TOMLFileError) -> KioskConfig
        {
            try? (minimal + "[sync]\nserver = \"https://clup.example\"\n" + sync)
                .write(toFile: config, atomically: true, encoding: .utf8)
            chmod(config, mode_t(configMode))
            chmod(secret, mode_t(secretMode))
            return try KioskConfig.load(path: config)
        }
        #expect(try load("credential_file = \"\(secret)\"\n").sync.credential == "k1.s3cret")
        #expect(throws: TOMLFileError.self) { try load("credential_file = \"\(secret)\"\n", secretMode: 0o644) }
        do {
            _ = try load("credential_file = \"\(secret)\"\n", secretMode: 0o640)
            Issue.record("a group-readable credential file was accepted")
        } catch {
            #expect(error.key == "sync.credential_file")
            #expect(error.message.contains("chmod 600"), "\(error)")
        }
        do {
            _ = try load("credential = \"k1.inline\"\n")
            Issue.record("a credential in a world-readable configuration was accepted")
        } catch {
            #expect(error.key == "sync.credential")
            #expect(error.message.contains("credential_file"), "\(error)")
        }
        #expect(try load("credential = \"k1.inline\"\n", configMode: 0o640).sync.credential == "k1.inline")
    }

    @Test func doorInputsAndFeedback() throws {
        let config = try KioskConfig.parse(
            minimal + """
                [door]
                exit_input = "evdev:///dev/input/by-id/usb-PCsensor_FootSwitch-event-kbd"
                exit_key = "KEY_F13"
                feedback_admit = "\\u0016M\\rBEPEXE1."
                feedback_refuse = "\\u0007"
                """,
            file: "k.toml"
        )
        #expect(config.door.exitInput == "/dev/input/by-id/usb-PCsensor_FootSwitch-event-kbd")
        #expect(config.door.exitKey == .code(183))
        #expect(config.door.feedbackAdmit == [0x16, 0x4D, 0x0D] + Array("BEPEXE1.".utf8))
        #expect(config.door.feedbackRefuse == [0x07])
    }

    @Test func pbmLogosParse() throws {
        let p1 = try PBMImage.parse(Array("P1\n# logo\n3 2\n1 0 1\n0 1 0\n".utf8), name: "p1")
        #expect(p1.width == 3 && p1.height == 2 && p1[0, 0] && !p1[1, 0] && p1[1, 1])
        let p4 = try PBMImage.parse(Array("P4\n9 1\n".utf8) + [0xFF, 0x80], name: "p4")
        #expect(p4.blackPixelCount == 9)
        #expect(throws: (any Error).self) { try PBMImage.parse(Array("P4\n9 1\n".utf8) + [0xFF], name: "short") }
        #expect(throws: (any Error).self) { try PBMImage.parse(Array("P6\n1 1\n".utf8), name: "color") }
    }

    @Test func autoTakeSensorFollowsTheProfile() throws {
        let tcp = try PrinterAddress(parsing: "tcp://h")
        #expect(TakeSensor.auto.resolved(profile: try .load(named: "citizen-ppu-700"), address: tcp) == .asb)
        #expect(TakeSensor.auto.resolved(profile: try .load(named: "custom-vkp80iii"), address: tcp) == .statusPoll)
        #expect(TakeSensor.auto.resolved(profile: try .load(named: "epson-tm-t88"), address: tcp) == .manual)
        #expect(
            TakeSensor.auto.resolved(
                profile: try .load(named: "citizen-ppu-700"),
                address: .cups(queue: "q", server: nil)
            ) == .manual
        )
        #expect(TakeSensor.dsr.resolved(profile: try .load(named: "epson-tm-t88"), address: tcp) == .dsr)
    }
}
