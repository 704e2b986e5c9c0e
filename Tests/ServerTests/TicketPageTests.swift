import Foundation
import KioskCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// The page a ticket's QR opens (`GET /T/<code>`): the code verified against the store's key ring, the
/// ticket's number, stage, people ahead and wait, in English or Italian, small and self-contained; a forged
/// or unknown code gets a page that says so, never a 500.
@Suite(.serialized) struct TicketPageTests {
    static func page(_ url: String, language: String? = nil) async throws -> (status: Int, html: String) {
        var request = URLRequest(url: URL(string: url)!)
        if let language { request.setValue(language, forHTTPHeaderField: "Accept-Language") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func theQRsURLOpensTheTicketsLivePage() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["name": "Mercato Centrale", "capacity": 1])
            var codes: [String] = []
            var holders: [String] = []
            var ids: [String] = []
            for _ in 0..<3 {
                let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
                codes.append(try #require(taken.body["qr"] as? String))
                holders.append(try #require(taken.body["holderToken"] as? String))
                ids.append(try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String))
            }
            // The QR text is the page's URL: the status URL's host is this server in a deployment; here the
            // path after the host is what a phone opens.
            func url(_ qr: String) -> String { server.url + "/T/" + qr.dropFirst("HTTPS://CLUP.EXAMPLE/T/".count) }

            let first = try await Self.page(url(codes[0]))
            #expect(first.status == 200)
            #expect(first.html.contains("V001") && first.html.contains("Mercato Centrale"))
            #expect(first.html.contains("It is your turn"), "capacity 1: V001 is called")
            let third = try await Self.page(url(codes[2]))
            #expect(third.html.contains("V003") && third.html.contains("Waiting"))
            #expect(third.html.contains("2 people ahead of you"))
            // The wait as the JSON tells it, with its range as the printed ticket shows it: "12 min (5–21)".
            let json = try await server.call("GET", "/v1/tickets/\(ids[2])", token: nil)
            let told = try [
                json.body["estimatedWaitSeconds"], json.body["estimatedWaitLowSeconds"],
                json.body["estimatedWaitHighSeconds"],
            ].map { try #require($0 as? Int).minutesUp }
            #expect(told[1] < told[0] && told[0] < told[2], "a wait behind two in a store of 1: \(told)")
            let shown = try await Self.page(url(codes[2])).html  // a few ms after the JSON: the same minutes
            #expect(shown.contains("\(told[0]) min (\(told[1])–\(told[2]))"), "\(told)")
            // The range's stated share beside it; a ticket called at once is told no range, nor the note.
            #expect(shown.contains(#"<p id="range-note" class="muted">The wait falls in this range 8 times in 10."#))
            #expect(first.html.contains(#"<p id="range-note" class="muted" hidden>"#))
            // The place in line and the wait change in one status region (WCAG 4.1.3): a screen reader says
            // both when either changes, without the page taking the focus.
            let region = try #require(shown.firstRange(of: #"<div id="progress" role="status""#))
            let after = shown[region.upperBound...]
            let end = try #require(after.firstRange(of: "</div>"))
            #expect(
                after[..<end.lowerBound].contains("2 people ahead of you")
                    && after[..<end.lowerBound].contains("\(told[0]) min")
            )
            #expect(third.html.contains("/v1/tickets/"), "the page follows its ticket's event stream")
            // Italian from the browser's language, or from the page's switch.
            let italian = try await Self.page(url(codes[2]), language: "it-IT,it;q=0.9,en;q=0.5")
            #expect(italian.html.contains(#"<html lang="it">"#) && italian.html.contains("2 persone prima di te"))
            let switched = try await Self.page(url(codes[2]) + "?lang=it")
            #expect(switched.html.contains("In attesa"))
            // Small and self-contained: no external resources, far under 60 KB.
            for html in [first.html, third.html, italian.html] {
                #expect(html.utf8.count < 60_000)
                #expect(!html.contains("src=\"http") && !html.contains("href=\"http"))
            }
            // Cancelled by its holder: the page says so.
            let cancelled = try await server.call(
                "DELETE",
                "/v1/tickets/\(ids[1])",
                token: nil,
                headers: ["Clup-Holder": holders[1]]
            )
            #expect(cancelled.status == 200)
            #expect(try await Self.page(url(codes[1])).html.contains("Cancelled"))

            // A code altered in one character, garbage, an empty code: a page that says so, with a 404.
            var altered = Array(url(codes[0]))
            altered[altered.count - 20] = altered[altered.count - 20] == "A" ? "B" : "A"
            for bad in [String(altered), server.url + "/T/HELLO", server.url + "/T/%20%3Cscript%3E"] {
                let answer = try await Self.page(bad)
                #expect(answer.status == 404, "\(bad)")
                #expect(answer.html.contains("Not a valid ticket"), "\(bad): \(answer.html)")
                // Nothing of the request is reflected: the page's own two scripts, no third.
                #expect(answer.html.components(separatedBy: "<script").count == 3, "\(bad)")
                #expect(!answer.html.contains("HELLO"))
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Bad input in the shopper pages' URLs: a page that says what is wrong, a 4xx, nothing stored; a
    /// search's words and a date are shown escaped, never as markup.
    @Test func badSearchesAndDatesGetAPageThatSaysSo() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["name": "Mercato Centrale"]).uuidString.lowercased()
            let cases: [(path: String, status: Int, says: String)] = [
                ("/?lat=999&lon=9", 400, "lat: must be a number in -90.0…90.0"),
                ("/?lat=45", 400, "give lon with lat"),
                ("/?q=%20%20", 400, "q: a store&#39;s name, street or town"),
                ("/?q=" + String(repeating: "x", count: 81), 400, "1 to 80 characters"),
                // 41 letters with a combining accent each: 82 code points, as the schema's maxLength counts them.
                ("/?q=" + String(repeating: "e%CC%81", count: 41), 400, "1 to 80 characters"),
                ("/?radiusKm=5", 400, "give radiusKm with lat and lon"),
                ("/stores/\(store)/book?date=2020-01-01", 400, "visits can be booked up to"),
                ("/stores/\(store)/book?date=%3Cb%3E", 400, "the store&#39;s local date as YYYY-MM-DD"),
                ("/stores/00000000-0000-0000-0000-000000000000/book", 404, "not known"),
                ("/stores/nonsense/book", 404, "not known"),
            ]
            for (path, status, says) in cases {
                let answer = try await Self.page(server.url + path)
                #expect(answer.status == status, "\(path)")
                #expect(answer.html.contains(says), "\(path): \(answer.html.prefix(200))")
                #expect(!answer.html.contains("<b>"), "\(path)")
            }
            // Markup in a search is shown as text.
            let search = try await Self.page(server.url + "/?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
            #expect(search.status == 200 && search.html.contains("value=\"&lt;script&gt;alert(1)&lt;/script&gt;\""))
            #expect(server.queue(UUID(uuidString: store)!)?.entries.isEmpty == true, "nothing stored")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension Int {
    fileprivate var minutesUp: Int { (self + 59) / 60 }
}
