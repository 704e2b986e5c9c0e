import Foundation
import KioskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The part of clup-server's `/v1` API a kiosk uses, over HTTP/JSON with the device's credential.
struct SyncAPI: Sendable {
    let base: URL
    let store: StoreID
    let credential: String
    let session: URLSession

    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// Retrying cannot help (wrong credential, refused events): the operator must act.
        var permanent = false
    }

    init(base: URL, store: StoreID, credential: String) {
        self.base = base
        self.store = store
        self.credential = credential
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 90
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    struct Appended: Decodable {
        struct One: Decodable {
            var id: EventID
            var sequence: Int64
        }
        var appended: [One]
        var last: Int64
    }

    struct Page: Decodable {
        var events: [StoreEvent]
        var last: Int64
    }

    struct Key: Codable {
        var device: DeviceID
        var keyId: String?
        var publicKey: String
    }

    struct Keys: Decodable {
        var keys: [Key]
    }

    struct Batch: Encodable {
        var events: [StoreEvent]
    }

    func push(_ events: [StoreEvent]) async throws -> Appended {
        try await call("POST", "v1/stores/\(store.uuidString)/events", body: Batch(events: events), timeout: 30)
    }

    func pull(after sequence: Int64, wait: Int, limit: Int = 1000) async throws -> Page {
        try await call(
            "GET",
            "v1/stores/\(store.uuidString)/events?after=\(sequence)&wait=\(wait)&limit=\(limit)",
            body: Optional<Batch>.none,
            timeout: Double(wait) + 15
        )
    }

    func keys() async throws -> Keys {
        try await call("GET", "v1/stores/\(store.uuidString)/keys", body: Optional<Batch>.none, timeout: 30)
    }

    func registerKey(_ key: Key) async throws {
        let _: Empty = try await call("PUT", "v1/devices/self/key", body: key, timeout: 30)
    }

    struct Empty: Decodable {}

    private func call<Body: Encodable, Answer: Decodable>(
        _ method: String,
        _ path: String,
        body: Body?,
        timeout: Double
    ) async throws -> Answer {
        guard let url = URL(string: path, relativeTo: base) else { throw Failure(description: "bad URL \(path)") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("Bearer \(credential)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw Failure(description: "\(base.absoluteString) not reachable (\(error.localizedDescription))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let message =
                (try? JSONDecoder().decode([String: String].self, from: data))
                .map { ($0["field"].map { "\($0): " } ?? "") + ($0["error"] ?? "") } ?? "HTTP \(status)"
            switch status {
            case 401:
                throw Failure(
                    description:
                        "the server refused the credential — enroll this kiosk again and set [sync] credential",
                    permanent: true
                )
            case 403, 400, 404, 409, 413, 422:
                throw Failure(description: "the server refused: \(message)", permanent: true)
            default:
                throw Failure(description: "the server answered \(status): \(message)")
            }
        }
        if Answer.self == Empty.self { return Empty() as! Answer }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw Failure(description: "unexpected answer from \(path): \(error)")
        }
    }
}
