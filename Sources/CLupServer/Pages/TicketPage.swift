import Foundation
import Hummingbird
import KioskCore

/// The page every ticket's QR opens: `GET <status URL path><signed code>` (`/T/…` by default). The code is
/// verified against its store's key ring; the page shows the ticket's number, stage, people ahead and
/// estimated wait, and follows them live (server-sent events from the app API's stream; without JavaScript,
/// a reload shows the current state). A forged, altered or unknown code gets a page that says so, with a 404.
struct TicketPage {
    let logs: StoreLogs
    let app: AppRoutes
    /// The status URL every code follows (upper case, as printed).
    let statusURL: String

    /// The path segment of the status URL the codes follow, e.g. `T` for `HTTPS://CLUP.EXAMPLE/T/`.
    var segment: String {
        let path = URLComponents(string: statusURL)?.path ?? "/T/"
        return path.split(separator: "/").joined(separator: "/")
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get(RouterPath("\(segment)/:code")) { request, context -> Response in
            let strings = PageStrings(
                query: request.uri.queryParameters["lang"].map(String.init),
                acceptLanguage: request.headers[.acceptLanguage]
            )
            let code = context.parameters.get("code") ?? ""
            guard let id = verified(code) else { return Self.invalid("invalid", strings) }
            guard let status = app.status(of: id), let live = logs.store(containing: id) else {
                return Self.invalid("unknown", strings)
            }
            return Self.html(
                .ok,
                PageTemplates.render("ticket", page(status, store: live.record.profile.name, strings))
            )
        }
    }

    /// The ticket a code stands for, once its signature checked out against its store's key ring.
    func verified(_ code: String) -> TicketID? {
        guard code.utf8.count <= 300, let store = TicketCodec.claimedStore(of: code[...]),
            let keys = try? logs.keyRing(of: store)
        else { return nil }
        let ring = KeyRing(keys.map(\.key))
        return try? TicketCodec.decode(statusURL + code, prefix: statusURL, keyRing: ring, store: store).ticket
    }

    private func page(_ status: TicketStatus, store: String, _ strings: PageStrings) -> [String: Any] {
        let ahead = status.peopleAhead.map { n in
            n == 0 ? strings["ahead_none"] : n == 1 ? strings["ahead_one"] : strings.format("ahead_many", n)
        }
        let minutes = status.estimatedWaitSeconds.map { strings.format("minutes", ($0 + 59) / 60) }
        let table =
            (try? JSONSerialization.data(withJSONObject: strings.scriptTable, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c") } ?? "{}"
        return [
            "lang": strings.language, "title": strings["your_ticket"], "store": store, "code": status.ticket.code,
            "pageTitle": "\(strings["your_ticket"]) \(status.ticket.code) — \(store)",
            "id": status.ticket.id.uuidString.lowercased(), "stage": status.stage,
            "stageText": strings["stage." + status.stage], "aheadText": ahead ?? "", "waitLabel": strings["wait"],
            "waitText": minutes ?? "—", "live": strings["live"], "reload": strings["reload"],
            "languageLabel": strings["language"], "strings": table,
            "languages": [["code": "en", "name": "English"], ["code": "it", "name": "Italiano"]],
        ]
    }

    static func invalid(_ key: String, _ strings: PageStrings) -> Response {
        html(
            .notFound,
            PageTemplates.render(
                "invalid",
                [
                    "lang": strings.language, "title": strings["invalid_title"],
                    "pageTitle": strings["invalid_title"], "message": strings[key],
                ]
            )
        )
    }

    static func html(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
