/// Any JSON value, read and written back as it came: the fields of an event of a type this version does not know
/// (``StoreEvent/Body/unknown(type:fields:)``), which a kiosk or a replica keeps for the version that will.
/// Integers stay integers (a 64-bit sequence or a millisecond time survives the round trip exactly).
public indirect enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var object: [String: JSONValue] = [:]
            for key in keyed.allKeys { object[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key) }
            self = .object(object)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [JSONValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let object):
            var keyed = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in object { try keyed.encode(value, forKey: AnyKey(key)) }
        case .array(let array):
            var unkeyed = encoder.unkeyedContainer()
            for value in array { try unkeyed.encode(value) }
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        }
    }

    /// An upper bound of the value's JSON: each text at 6 bytes a byte (a control character is escaped as
    /// `\u0000`), a number at 32, and the brackets, quotes and separators around them.
    public var wireBytesBound: Int {
        switch self {
        case .null, .bool: 5
        case .integer, .number: 32
        case .string(let text): 2 + 6 * text.utf8.count
        case .array(let values): 2 + values.reduce(0) { $0 + $1.wireBytesBound + 1 }
        case .object(let object): 2 + object.reduce(0) { $0 + 4 + 6 * $1.key.utf8.count + $1.value.wireBytesBound }
        }
    }

    /// A key of an object whose keys are not known in advance.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
