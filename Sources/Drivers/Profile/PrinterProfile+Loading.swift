import Foundation
import StrictTOML

extension PrinterProfile {
    /// The profiles shipped with kioskd, by id.
    public static var bundledIDs: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: bundledDirectory)) ?? []
        return files.filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Where the shipped profile files are: installed beside the binaries (the Debian package puts them in
    /// `/usr/share/clup-kiosk/profiles` for `/usr/bin/kioskd`), else in the build's resource bundle.
    public static var bundledDirectory: String {
        installedDirectory ?? Bundle.module.resourcePath.map { "\($0)/Profiles" } ?? "Profiles"
    }

    /// `<prefix>/share/clup-kiosk/profiles` for a binary in `<prefix>/bin`, when it exists.
    static let installedDirectory: String? = {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        let directory = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/clup-kiosk/profiles").path
        return FileManager.default.fileExists(atPath: directory) ? directory : nil
    }()

    /// Loads a profile by id from `extraDirectories` (first match wins), then from the shipped ones.
    public static func load(named id: String, extraDirectories: [String] = []) throws(PrinterError) -> PrinterProfile {
        guard id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }), !id.isEmpty else {
            throw PrinterError(.profile, device: id, "a profile name has only letters, digits, '-' and '_'")
        }
        for directory in extraDirectories + [bundledDirectory] {
            let path = "\(directory)/\(id).toml"
            if FileManager.default.fileExists(atPath: path) {
                return try load(path: path)
            }
        }
        throw PrinterError(
            .profile,
            device: id,
            "no printer profile '\(id)' — known profiles: \(bundledIDs.joined(separator: ", "))"
        )
    }

    /// Loads a profile file. Any unknown key or wrong type is an error naming the file and key.
    public static func load(path: String) throws(PrinterError) -> PrinterProfile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw PrinterError(.profile, device: path, "cannot read the profile file", cause: TextError("\(error)"))
        }
        let id = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        do {
            return try parse(text, id: id, file: path)
        } catch {
            throw PrinterError(.profile, device: path, error.description, cause: error)
        }
    }

    /// `retract = "1D 52 30"`: the command's bytes in hex, for a printer with a presenter.
    static func parseRetract(_ root: StrictTable) throws(TOMLFileError) -> [UInt8]? {
        guard let text = try root.string("retract") else { return nil }
        let bytes = text.split(separator: " ").map { UInt8($0, radix: 16) }
        guard (1...8).contains(bytes.count), bytes.allSatisfy({ $0 != nil }) else {
            throw root.error("retract", "the command's bytes in hex, separated by spaces (e.g. \"1D 52 30\")")
        }
        guard try root.bool("presenter") == true else {
            throw root.error("retract", "only a printer with a presenter can retract (set presenter = true)")
        }
        return bytes.compactMap { $0 }
    }

    /// Parses profile text (`file` only names it in errors).
    public static func parse(_ text: String, id: String, file: String) throws(TOMLFileError) -> PrinterProfile {
        let root = try StrictTable.parse(text, file: file)
        guard let name = try root.string("name") else { throw root.error("name", "missing: the model name") }
        guard let dots = try root.int("dots_per_line", in: 96...4096) else {
            throw root.error("dots_per_line", "missing: printable dots per line (e.g. 384 for 58 mm, 576 for 80 mm)")
        }
        var profile = PrinterProfile(
            id: id,
            name: name,
            dotsPerLine: dots,
            dpi: try root.int("dpi", in: 100...600) ?? 203,
            codePages: [],
            nativeQR: try root.bool("native_qr") ?? false,
            qrMaxVersion: try root.int("qr_max_version", in: 1...40) ?? 40,
            statusQueries: [],
            automaticStatusBack: try root.bool("automatic_status_back") ?? false,
            presenter: try root.bool("presenter") ?? false,
            feedBeforeCut: try root.int("feed_before_cut", in: 0...20) ?? 3,
            retract: try parseRetract(root),
            status: StatusBitMap(),
            transport: TransportDefaults()
        )

        for (i, slot) in (try root.tables("code_pages") ?? []).enumerated() {
            guard let pageName = try slot.string("name") else { throw slot.error("name", "missing: e.g. \"cp437\"") }
            guard let page = CodePage.named(pageName) else {
                throw slot.error(
                    "name",
                    "unknown code page '\(pageName)' — known: \(CodePage.all.map(\.name).joined(separator: ", "))"
                )
            }
            guard let n = try slot.int("esc_t", in: 0...255) else {
                throw slot.error("esc_t", "missing: the n of ESC t n for code_pages[\(i)]")
            }
            try slot.rejectUnknownKeys()
            profile.codePages.append(CodePageSlot(page: page, escT: UInt8(n)))
        }
        if profile.codePages.isEmpty {
            throw root.error("code_pages", "missing: at least one { name = \"cp437\", esc_t = 0 }")
        }

        for (i, queryName) in (try root.strings("status_queries") ?? []).enumerated() {
            guard let source = StatusSource(rawValue: queryName), source != .asb else {
                throw root.error(
                    "status_queries[\(i)]",
                    "'\(queryName)' is not a status request — use dle_eot_1...dle_eot_4, gs_r_1, custom_full"
                )
            }
            profile.statusQueries.insert(source)
        }

        if let status = try root.table("status") {
            profile.status = try parseStatus(status)
        }
        if let transport = try root.table("transport") {
            profile.transport = try parseTransport(transport)
        }
        try root.rejectUnknownKeys()
        return profile
    }

    private static func parseStatus(_ table: StrictTable) throws(TOMLFileError) -> StatusBitMap {
        var map = StatusBitMap()
        for sourceKey in table.keys.sorted() {
            guard let source = StatusSource(rawValue: sourceKey) else {
                throw table.error(
                    sourceKey,
                    "unknown status source — use \(StatusSource.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            guard let rulesTable = try table.table(sourceKey) else { continue }
            var rules: [StatusBitMap.Rule] = []
            for conditionKey in rulesTable.keys.sorted() {
                guard let condition = StatusCondition(rawValue: conditionKey) else {
                    throw rulesTable.error(
                        conditionKey,
                        "unknown condition — use \(StatusCondition.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                let rule: StatusBitMap.Rule
                if let detail = try? rulesTable.table(conditionKey) {
                    let byte = try detail.int("byte", in: 1...source.byteCount) ?? 1
                    guard let mask = try detail.int("mask", in: 1...255) else {
                        throw detail.error("mask", "missing: the bit mask, e.g. 0x08")
                    }
                    let active = try detail.string("active") ?? "set"
                    guard active == "set" || active == "clear" else {
                        throw detail.error("active", "'\(active)' must be \"set\" or \"clear\"")
                    }
                    try detail.rejectUnknownKeys()
                    rule = .init(
                        byte: byte - 1,
                        mask: UInt8(mask),
                        condition: condition,
                        activeWhenSet: active == "set"
                    )
                } else if let mask = try rulesTable.int(conditionKey, in: 1...255) {
                    rule = .init(byte: 0, mask: UInt8(mask), condition: condition)
                } else {
                    continue
                }
                let fixed = source.fixedBits(byte: rule.byte)
                if rule.mask & fixed != 0 {
                    throw rulesTable.error(
                        conditionKey,
                        "mask 0x\(String(rule.mask, radix: 16)) overlaps the fixed bits 0x\(String(fixed, radix: 16)) "
                            + "that identify a \(source.rawValue) reply"
                    )
                }
                rules.append(rule)
            }
            map.rules[source] = rules
        }
        return map
    }

    private static func parseTransport(_ table: StrictTable) throws(TOMLFileError) -> TransportDefaults {
        var defaults = TransportDefaults()
        if let baud = try table.int("baud") {
            guard SerialSettings.supportedBauds.contains(baud) else {
                throw table.error(
                    "baud",
                    "\(baud) is not a standard rate — use one of \(SerialSettings.supportedBauds)"
                )
            }
            defaults.baud = baud
        }
        defaults.flowControl = try table.choice("flow_control", FlowControl.self) ?? .rtsCts
        defaults.usbVendor = try table.int("usb_vendor", in: 0...0xFFFF).map(UInt16.init)
        defaults.usbProduct = try table.int("usb_product", in: 0...0xFFFF).map(UInt16.init)
        defaults.ieee1284ID = try table.string("ieee1284_id")
        try table.rejectUnknownKeys()
        return defaults
    }
}
