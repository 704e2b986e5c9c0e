import Hummingbird
import Logging
import Synchronization

extension Refusal {
    /// What `error` refuses; a failure (no refusal) is logged with the request and answered as ``failed``,
    /// nothing of the server's inside in it. Pages that show a refusal in place read errors here too.
    init(answering error: any Error, to request: Request, logger: Logger) {
        if let refusal = Refusal(refusing: error) {
            self = refusal
            return
        }
        logger.error(
            "request failed",
            metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "error": "\(error)"]
        )
        self = .failed
    }
}

/// Every error answer in one shape, `{"error": "…"}` (``APIError``): a ``Refusal`` answered by its code, and the
/// framework's own — an
/// unknown route, a path parameter that is not a UUID, a method the path does not have — and failures
/// nobody expected, which answer 500 with a message that gives nothing of the server's inside away (the
/// log has the details).
///
/// A path the API has, asked with a method it does not take, answers 405 with the methods it does take
/// (`Allow`), rather than the router's 404.
struct ErrorEnvelope<Context: RequestContext>: RouterMiddleware {
    let routes: KnownRoutes

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            if error.status == .notFound {
                let allowed = routes.methods(for: request.uri.path)
                if !allowed.isEmpty {
                    var refusal = APIError(.methodNotAllowed, Self.message(.methodNotAllowed))
                    refusal.allow = allowed
                    throw refusal
                }
            }
            throw APIError(error.status, Self.message(error.status))
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(Refusal(answering: error, to: request, logger: context.logger))
        }
    }

    static func message(_ status: HTTPResponse.Status) -> String {
        switch status {
        case .badRequest: return "invalid request: a path parameter or query is not of the documented form"
        case .notFound: return "no such resource — see docs/clup-server.openapi.yaml for the API"
        case .methodNotAllowed: return "this path does not take that method"
        case .contentTooLarge: return "request body too large"
        case .requestTimeout: return "the request took too long to arrive"
        default: return status.reasonPhrase.isEmpty ? "request refused (\(status.code))" : status.reasonPhrase
        }
    }
}

/// The API's routes as `METHOD /path/{parameter}` templates, known once every route is registered: which
/// methods a concrete path takes.
final class KnownRoutes: Sendable {
    private let templates = Mutex<[(method: String, segments: [Substring])]>([])

    func set(_ routes: [String]) {
        let parsed = routes.compactMap { route -> (String, [Substring])? in
            let parts = route.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            return (String(parts[0]), parts[1].split(separator: "/"))
        }
        templates.withLock { $0 = parsed }
    }

    /// The methods whose template matches `path` (a `{parameter}` matches any one segment), sorted.
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        let matching = templates.withLock { templates in
            templates.filter { template in
                template.segments.count == segments.count
                    && zip(template.segments, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
            }.map(\.method)
        }
        return Set(matching).sorted()
    }
}
