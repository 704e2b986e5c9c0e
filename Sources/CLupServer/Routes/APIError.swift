import Foundation
import Hummingbird
import KioskCore
import NIOCore
import SyncWire

/// An error answer: a status and a JSON body `{"error": "...", "field": "..."}` that says what to fix. Routes,
/// services and queues throw a ``Refusal``; ``ErrorEnvelope`` answers it as this (`Refusal+HTTP.swift`).
public struct APIError: Error, Sendable, HTTPResponseError, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var message: String
    /// The request field at fault (`capacity`, `location.latitude`), when there is one.
    public var field: String?
    /// Seconds, for 429 and 503 answers.
    public var retryAfter: Int?
    /// The methods the path takes, for 405 answers.
    public var allow: [String]?
    /// A short key a client can tell the case by, where one status covers several (`closed`).
    public var reason: String?
    /// The protocols the server wants, for 426 answers (their `Upgrade` header).
    public var upgrade: String?

    public init(_ status: HTTPResponse.Status, _ message: String, field: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.field = field
        self.retryAfter = retryAfter
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var object = ["error": message]
        if let field { object["field"] = field }
        if let reason { object["reason"] = reason }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        var headers: HTTPFields = [.contentType: "application/json"]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = "\(retryAfter)" }
        if let allow { headers[.allow] = allow.joined(separator: ", ") }
        if let upgrade { headers[.upgrade] = upgrade }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension DecodingError {
    /// The JSON path of the field a decoding error is about, e.g. `location.latitude` or `events[3].id`.
    var field: String? {
        let path: [any CodingKey]
        switch self {
        case .keyNotFound(let key, let context): path = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        @unknown default: return nil
        }
        guard !path.isEmpty else { return nil }
        return path.reduce(into: "") { result, key in
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += (result.isEmpty ? "" : ".") + key.stringValue
            }
        }
    }

    var problem: String {
        switch self {
        case .keyNotFound: return "missing"
        case .typeMismatch(let type, _): return "wrong type (expected \(type))"
        case .valueNotFound(let type, _): return "null where \(type) is needed"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription
        @unknown default: return "invalid"
        }
    }
}
