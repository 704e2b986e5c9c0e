import Drivers
import Foundation
import Testing

/// udev/70-clup-kiosk.rules, read as udev reads it (udevadm of Debian 12 has no `verify`; the USB gadget rig
/// runs the rules under a real udevd): every line is `KEY[{attr}]OP"value"` pairs, matches compare and
/// assignments assign, every GOTO has its LABEL; and the rules cover what the kiosk needs.
@Suite struct UdevRulesTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("udev/70-clup-kiosk.rules").path

    struct Pair: Equatable {
        var key: String
        var attribute: String?
        var op: String
        var value: String
    }

    /// One rule line into its pairs; nil when something in it is not a pair.
    static func parse(_ line: String) -> [Pair]? {
        let pattern = /([A-Z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,\s*|$)/
        var pairs: [Pair] = []
        var rest = Substring(line)
        while !rest.isEmpty {
            guard let match = rest.prefixMatch(of: pattern) else { return nil }
            pairs.append(
                Pair(
                    key: String(match.1),
                    attribute: match.2.map(String.init),
                    op: String(match.3),
                    value: String(match.4)
                )
            )
            rest = rest[match.range.upperBound...]
        }
        return pairs
    }

    static let matchOnly: Set = [
        "ACTION", "SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "KERNELS", "ATTRS", "DRIVERS", "DRIVER",
    ]
    static let assignOnly: Set = ["MODE", "GROUP", "OWNER", "SYMLINK", "GOTO", "LABEL", "RUN", "NAME"]
    static let either: Set = ["ENV", "ATTR", "TAG"]

    var rules: [[Pair]] {
        get throws {
            let text = try String(contentsOfFile: Self.path, encoding: .utf8)
            return try text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
                .map { line in try #require(Self.parse(line), "not a udev rule: \(line)") }
        }
    }

    @Test func everyLineIsWellFormed() throws {
        let rules = try rules
        #expect(rules.count > 10)
        var labels: Set<String> = []
        var gotos: Set<String> = []
        for rule in rules {
            for pair in rule {
                let known =
                    Self.matchOnly.contains(pair.key) || Self.assignOnly.contains(pair.key)
                    || Self.either.contains(pair.key)
                #expect(known, "unknown key \(pair.key)")
                let compares = pair.op == "==" || pair.op == "!="
                if Self.matchOnly.contains(pair.key) { #expect(compares, "\(pair.key) must be matched") }
                if Self.assignOnly.contains(pair.key) { #expect(!compares, "\(pair.key) must be assigned") }
                if ["ENV", "ATTR", "ATTRS"].contains(pair.key) {
                    #expect(pair.attribute != nil, "\(pair.key) needs {…}")
                }
                if pair.key == "MODE" { #expect(pair.value.wholeMatch(of: /0[0-7]{3}/) != nil, "mode \(pair.value)") }
                if pair.key == "GROUP" { #expect(pair.value == "kioskd") }
                if pair.key == "LABEL" { labels.insert(pair.value) }
                if pair.key == "GOTO" { gotos.insert(pair.value) }
            }
            // A rule that only assigns applies to every device: each one here matches something first.
            if rule.first?.key != "LABEL" { #expect(rule.contains { $0.op == "==" || $0.op == "!=" }) }
        }
        #expect(gotos.isSubset(of: labels), "GOTO without LABEL: \(gotos.subtracting(labels))")
    }

    @Test func theParserRefusesWhatUdevRefuses() {
        #expect(Self.parse(#"SUBSYSTEM=="usb", MODE="0660""#)?.count == 2)
        #expect(Self.parse(#"SUBSYSTEM=="usb" MODE="0660""#) == nil)  // no comma
        #expect(Self.parse(#"SUBSYSTEM=="usb, MODE="0660""#) == nil)  // unbalanced quote
        #expect(Self.parse(#"subsystem=="usb""#) == nil)
    }

    @Test func theRulesCoverPrintersAndScanners() throws {
        let pairs = try rules.flatMap { $0 }
        func has(_ key: String, _ attribute: String? = nil, _ op: String, _ value: String) -> Bool {
            pairs.contains(Pair(key: key, attribute: attribute, op: op, value: value))
        }
        // Printer class 07, and every shipped profile's vendor:product.
        #expect(has("ENV", "ID_USB_INTERFACES", "==", "*:07????:*"))
        for id in PrinterProfile.bundledIDs {
            let transport = try PrinterProfile.load(named: id).transport
            guard let vendor = transport.usbVendor, let product = transport.usbProduct else { continue }
            let rule = try rules.first { rule in
                rule.contains(Pair(key: "ATTR", attribute: "idVendor", op: "==", value: hex(vendor)))
                    && rule.contains(Pair(key: "ATTR", attribute: "idProduct", op: "==", value: hex(product)))
            }
            #expect(rule != nil, "\(id): \(hex(vendor)):\(hex(product)) has no rule")
        }
        #expect(has("SYMLINK", nil, "+=", "clup/printer"))
        #expect(has("SYMLINK", nil, "+=", "clup/scanner"))
        #expect(has("ENV", "ID_MM_DEVICE_IGNORE", "=", "1"))
        #expect(has("TAG", nil, "+=", "systemd"))
        #expect(has("ACTION", nil, "==", "remove"))
    }

    func hex(_ value: UInt16) -> String { String(format: "%04x", value) }
}
