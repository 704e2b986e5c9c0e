import Foundation
import Hummingbird

/// How the shopper pages answer: HTML that is never cached (it shows a live line), with a content security
/// policy that allows nothing from elsewhere; an error is a page that says what went wrong and how to go on,
/// with the API's status (never a stack trace, never JSON in a browser tab).
struct PageResponse: Sendable {
    /// The status URL every code follows (upper case, as printed), e.g. `HTTPS://CLUP.EXAMPLE/T/`.
    let statusURL: String

    /// The path segment of the status URL the codes follow, e.g. `T`.
    var segment: String {
        let path = URLComponents(string: statusURL)?.path ?? "/T/"
        return path.split(separator: "/").joined(separator: "/")
    }

    func page(
        _ name: String,
        _ values: [String: Any],
        _ strings: PageStrings,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        let text = PageTemplates.render(name, values, strings, statusURL: statusURL, segment: segment)
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                    + "connect-src 'self'; worker-src 'self'; form-action 'self'; base-uri 'none'; "
                    + "frame-ancestors 'none'",
                .init("Referrer-Policy")!: "same-origin", .init("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// A page that says `message` under `title`, answered with `status`.
    func message(_ title: String, _ message: String, _ strings: PageStrings, status: HTTPResponse.Status) -> Response {
        page("message", ["title": title, "pageTitle": title, "message": message], strings, status: status)
    }

    /// The page for an API refusal: the page's own words for the status, the API's detail after them.
    func refusal(_ error: Refusal, _ strings: PageStrings) -> Response {
        let words = strings.table["error.\(error.status.code)"] ?? strings["error.other"]
        return message(strings["problem"], "\(words) (\(error.description))", strings, status: error.status)
    }
}
