/// Which bit of which status byte means which condition, for one printer model (from its profile).
public struct StatusBitMap: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        /// 0-based index of the status byte in the block (0 for single-byte replies).
        public var byte: Int
        public var mask: UInt8
        public var condition: StatusCondition
        /// True if the condition is active when a masked bit is set; false if active when all are clear
        /// (e.g. Citizen's ASB "paper not found by presenter sensor").
        public var activeWhenSet: Bool

        public init(byte: Int = 0, mask: UInt8, condition: StatusCondition, activeWhenSet: Bool = true) {
            self.byte = byte
            self.mask = mask
            self.condition = condition
            self.activeWhenSet = activeWhenSet
        }
    }

    public var rules: [StatusSource: [Rule]]

    public init(_ rules: [StatusSource: [Rule]] = [:]) {
        self.rules = rules
    }

    /// Decodes one block's status bytes (headers excluded).
    public func decode(_ source: StatusSource, _ bytes: [UInt8]) -> [StatusCondition: Bool] {
        var result: [StatusCondition: Bool] = [:]
        for rule in rules[source] ?? [] where rule.byte < bytes.count {
            let set = bytes[rule.byte] & rule.mask != 0
            let active = rule.activeWhenSet ? set : !set
            // A condition reported by two rules of one block is active if either says so.
            result[rule.condition] = (result[rule.condition] ?? false) || active
        }
        return result
    }

    /// The status bytes a printer with these conditions sends (what the emulator answers).
    public func encode(_ source: StatusSource, _ active: Set<StatusCondition>) -> [UInt8] {
        var bytes = (0..<source.byteCount).map { source.fixedValue(byte: $0) }
        for rule in rules[source] ?? [] where rule.byte < bytes.count {
            if active.contains(rule.condition) == rule.activeWhenSet {
                bytes[rule.byte] |= rule.mask
            }
        }
        return bytes
    }

    /// The conditions a source can report.
    public func conditions(of source: StatusSource) -> Set<StatusCondition> {
        Set((rules[source] ?? []).map(\.condition))
    }
}
