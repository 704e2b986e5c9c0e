import TOMLKit

/// A mistake in a TOML file, naming the file and the dotted key so the installer can fix it.
public struct TOMLFileError: Error, Sendable, CustomStringConvertible {
    public let file: String
    /// Dotted path of the key, e.g. `status.asb.cover_open`; empty for a syntax error.
    public let key: String
    public let message: String

    public init(file: String, key: String, _ message: String) {
        self.file = file
        self.key = key
        self.message = message
    }

    public var description: String {
        key.isEmpty ? "\(file): \(message)" : "\(file): key '\(key)': \(message)"
    }
}

/// Reads a TOML table key by key with type checks, then rejects any key nobody asked for.
///
/// Unknown keys are errors, not silently ignored: a misspelt `dots_per_lin` must not fall back to a default.
public final class StrictTable {
    public let file: String
    public let path: String
    private let table: TOMLTable
    private var seen: Set<String> = []

    public init(_ table: TOMLTable, file: String, path: String = "") {
        self.table = table
        self.file = file
        self.path = path
    }

    /// Parses TOML text; a syntax error names the line and column.
    public static func parse(_ text: String, file: String) throws(TOMLFileError) -> StrictTable {
        do {
            return StrictTable(try TOMLTable(string: text), file: file)
        } catch let error as TOMLParseError {
            throw TOMLFileError(
                file: file,
                key: "",
                "syntax error at line \(error.source.begin.line), column \(error.source.begin.column): \(error.description)"
            )
        } catch {
            throw TOMLFileError(file: file, key: "", "cannot parse: \(error)")
        }
    }

    public var keys: [String] { table.keys }

    public func fullKey(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public func error(_ key: String, _ message: String) -> TOMLFileError {
        TOMLFileError(file: file, key: fullKey(key), message)
    }

    private func value(_ key: String) -> TOMLValueConvertible? {
        seen.insert(key)
        return table[key]
    }

    public func has(_ key: String) -> Bool { table[key] != nil }

    public func string(_ key: String) throws(TOMLFileError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.string else { throw error(key, "expected a string, found \(v.type)") }
        return s
    }

    public func int(_ key: String, in range: ClosedRange<Int>? = nil) throws(TOMLFileError) -> Int? {
        guard let v = value(key) else { return nil }
        guard let i = v.int else { throw error(key, "expected an integer, found \(v.type)") }
        if let range, !range.contains(i) {
            throw error(key, "\(i) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return i
    }

    public func double(_ key: String) throws(TOMLFileError) -> Double? {
        guard let v = value(key) else { return nil }
        if let d = v.double { return d }
        if let i = v.int { return Double(i) }
        throw error(key, "expected a number, found \(v.type)")
    }

    public func bool(_ key: String) throws(TOMLFileError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard let b = v.bool else { throw error(key, "expected true or false, found \(v.type)") }
        return b
    }

    public func table(_ key: String) throws(TOMLFileError) -> StrictTable? {
        guard let v = value(key) else { return nil }
        guard let t = v.table else { throw error(key, "expected a table, found \(v.type)") }
        return StrictTable(t, file: file, path: fullKey(key))
    }

    public func strings(_ key: String) throws(TOMLFileError) -> [String]? {
        guard let v = value(key) else { return nil }
        guard let array = v.array else { throw error(key, "expected an array of strings, found \(v.type)") }
        var out: [String] = []
        for (i, item) in array.enumerated() {
            guard let s = item.string else { throw error("\(key)[\(i)]", "expected a string, found \(item.type)") }
            out.append(s)
        }
        return out
    }

    /// An array of arrays of numbers (`[[1, 2.5], [3]]`); an element that is not a number is nil.
    public func arrays(_ key: String) throws(TOMLFileError) -> [[Double?]]? {
        guard let v = value(key) else { return nil }
        guard let rows = v.array else { throw error(key, "expected an array of arrays, found \(v.type)") }
        var out: [[Double?]] = []
        for (i, row) in rows.enumerated() {
            guard let items = row.array else { throw error("\(key)[\(i)]", "expected an array, found \(row.type)") }
            out.append(items.map { $0.double ?? $0.int.map(Double.init) })
        }
        return out
    }

    public func tables(_ key: String) throws(TOMLFileError) -> [StrictTable]? {
        guard let v = value(key) else { return nil }
        guard let array = v.array else { throw error(key, "expected an array of tables, found \(v.type)") }
        var out: [StrictTable] = []
        for (i, item) in array.enumerated() {
            guard let t = item.table else { throw error("\(key)[\(i)]", "expected a table, found \(item.type)") }
            out.append(StrictTable(t, file: file, path: fullKey("\(key)[\(i)]")))
        }
        return out
    }

    /// A string that must be one of an enum's raw values.
    public func choice<E: RawRepresentable & CaseIterable>(_ key: String, _: E.Type) throws(TOMLFileError) -> E?
    where E.RawValue == String {
        guard let s = try string(key) else { return nil }
        guard let e = E(rawValue: s) else {
            throw error(key, "'\(s)' is not one of: \(E.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return e
    }

    /// Throws for the first key that was never read.
    public func rejectUnknownKeys() throws(TOMLFileError) {
        for key in table.keys.sorted() where !seen.contains(key) {
            throw error(key, "unknown key — check its spelling against the documented keys")
        }
    }
}
