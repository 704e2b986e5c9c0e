/// A condition a printer can report. Raw values are the keys used in profile files.
/// Declared most specific first: a printer whose paper ran out also says it is offline, and the operator must
/// read "load a new roll", not "check that it is switched on".
public enum StatusCondition: String, Sendable, Hashable, CaseIterable, Comparable {
    case paperEnd = "paper_end"
    case coverOpen = "cover_open"
    case cutterError = "cutter_error"
    case recoverableError = "recoverable_error"
    case unrecoverableError = "unrecoverable_error"
    case autoRecoverableError = "auto_recoverable_error"
    case offline
    case paperNearEnd = "paper_near_end"
    /// A ticket is in the output or presenter (it has not been taken yet).
    case ticketPresent = "ticket_present"
    /// The last presented ticket went back into the printer (a retract counter or a paper-in-retract-path bit):
    /// what tells a retracted ticket from one a customer took as the presenter pulled.
    case ticketRetracted = "ticket_retracted"

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// True for the conditions that stop printing.
    public var stopsPrinting: Bool {
        switch self {
        case .offline, .coverOpen, .paperEnd, .cutterError, .recoverableError, .unrecoverableError,
            .autoRecoverableError:
            return true
        case .paperNearEnd, .ticketPresent, .ticketRetracted:
            return false
        }
    }

    /// What the store operator should do when the condition is active.
    public var operatorAction: String {
        switch self {
        case .offline: return "printer offline — check that it is switched on and its cover is closed"
        case .coverOpen: return "printer cover open — close it to resume"
        case .paperNearEnd: return "paper roll nearly empty — have a new roll ready"
        case .paperEnd: return "paper roll empty — load a new roll and close the cover"
        case .cutterError: return "cutter jammed — open the cover, remove the stuck paper, close the cover"
        case .recoverableError: return "printer mechanism error — open and close the cover to recover"
        case .unrecoverableError: return "printer hardware failure — switch it off and on; call service if it stays"
        case .autoRecoverableError: return "print head too hot — printing resumes by itself when it cools down"
        case .ticketPresent: return "a ticket waits in the printer output"
        case .ticketRetracted: return "the last ticket went back into the printer"
        }
    }
}

/// Where a status byte block came from: which reply or push. Raw values are the profile file keys.
public enum StatusSource: String, Sendable, Hashable, CaseIterable {
    /// `DLE EOT 1`: printer status.
    case dleEot1 = "dle_eot_1"
    /// `DLE EOT 2`: offline cause.
    case dleEot2 = "dle_eot_2"
    /// `DLE EOT 3`: error cause.
    case dleEot3 = "dle_eot_3"
    /// `DLE EOT 4`: roll paper sensor.
    case dleEot4 = "dle_eot_4"
    /// `GS r 1`: paper sensor status.
    case gsR1 = "gs_r_1"
    /// Custom's full status `DLE EOT 20` (`10 04 14`): header `10 0F` and four status bytes.
    case customFull = "custom_full"
    /// Automatic Status Back (`GS a n`): four bytes pushed when the status changes.
    case asb

    /// Number of status bytes that carry bits (headers excluded).
    public var byteCount: Int {
        switch self {
        case .asb, .customFull: return 4
        default: return 1
        }
    }

    /// Bits that are fixed by the reply format and may not carry a condition: they are how the decoder
    /// tells replies apart (Epson ESC/POS reference, "Identification of send status": DLE EOT replies are
    /// 0xx1xx10b, the ASB header 0xx1xx00b, further ASB bytes and GS r replies 0xx0xxxxb).
    public func fixedBits(byte index: Int) -> UInt8 {
        switch self {
        case .dleEot1, .dleEot2, .dleEot3, .dleEot4: return 0x93
        case .asb: return index == 0 ? 0x93 : 0x90
        case .gsR1: return 0x90
        case .customFull: return 0x00
        }
    }

    /// The value of the fixed bits (what a reply with no condition active looks like).
    public func fixedValue(byte index: Int) -> UInt8 {
        switch self {
        case .dleEot1, .dleEot2, .dleEot3, .dleEot4: return 0x12
        case .asb: return index == 0 ? 0x10 : 0x00
        case .gsR1, .customFull: return 0x00
        }
    }
}

/// One decoded block: what it said about the conditions it covers (others are untouched).
public struct StatusReport: Sendable, Equatable {
    public let source: StatusSource
    public let bytes: [UInt8]
    public let conditions: [StatusCondition: Bool]

    public init(source: StatusSource, bytes: [UInt8], conditions: [StatusCondition: Bool]) {
        self.source = source
        self.bytes = bytes
        self.conditions = conditions
    }
}

/// What is known about a printer, merged from every report so far.
public struct PrinterStatus: Sendable, Equatable, CustomStringConvertible {
    public private(set) var conditions: [StatusCondition: Bool] = [:]

    public init(_ conditions: [StatusCondition: Bool] = [:]) {
        self.conditions = conditions
    }

    public mutating func apply(_ report: StatusReport) {
        conditions.merge(report.conditions) { _, new in new }
    }

    public subscript(condition: StatusCondition) -> Bool {
        conditions[condition] ?? false
    }

    public var isOnline: Bool { !self[.offline] }

    /// Active conditions, most important first.
    public var active: [StatusCondition] {
        conditions.filter(\.value).map(\.key).sorted()
    }

    /// Conditions that stop printing, most important first.
    public var faults: [StatusCondition] {
        active.filter(\.stopsPrinting)
    }

    public var canPrint: Bool { faults.isEmpty }

    public var description: String {
        let list = active.map(\.rawValue)
        return list.isEmpty ? "ready" : list.joined(separator: ",")
    }
}
