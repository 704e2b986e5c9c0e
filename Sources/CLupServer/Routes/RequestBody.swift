import Foundation
import Hummingbird

extension Request {
    /// The JSON body as `T`, or an error naming what is wrong: too big (413), not JSON, or the field that is
    /// missing or of the wrong type (400).
    func decode<T: Decodable>(_ type: T.Type, limit: Int = 1 << 20) async throws(Refusal) -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: limit)
        } catch {
            throw Refusal(.tooLarge, "request body over \(limit) bytes")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw Refusal.invalid(error.problem, field: error.field)
        } catch {
            throw Refusal.invalid("not valid JSON")
        }
    }

    /// The bearer token of the `Authorization` header.
    var bearerToken: String? { headers.bearerToken }
}
