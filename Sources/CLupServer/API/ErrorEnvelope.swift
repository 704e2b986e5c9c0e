import Hummingbird
import Logging

/// Every error answer in one shape, `{"error": "…"}` (``APIError``), including the framework's own — an
/// unknown route, a path parameter that is not a UUID, a method the path does not have — and failures
/// nobody expected, which answer 500 with a message that gives nothing of the server's inside away (the
/// log has the details).
struct ErrorEnvelope<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            throw APIError(error.status, Self.message(error.status))
        } catch {
            context.logger.error(
                "request failed",
                metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "error": "\(error)"]
            )
            throw APIError(.internalServerError, "the server could not complete this request — try again later")
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
