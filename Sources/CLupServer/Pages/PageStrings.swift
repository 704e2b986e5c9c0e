import Foundation
import Hummingbird
import KioskCore

/// The words of one page, in the language it is shown in (``PageCatalogue``: English and Italian). A page takes the language
/// from `?lang=` (the page's own switch), else the browser's `Accept-Language`, else English.
struct PageStrings: Sendable {
    let language: String
    let table: [String: String]

    subscript(_ key: String) -> String { table[key] ?? Self.catalogue["en"]![key] ?? key }

    static let languages = ["en", "it"]

    static let catalogue: [String: [String: String]] = [
        "en": PageCatalogue.english.merging(ConsoleCatalogue.english) { own, _ in own },
        "it": PageCatalogue.italian.merging(ConsoleCatalogue.italian) { own, _ in own },
    ]

    /// The strings for a request: `?lang=`, else the first supported language of `Accept-Language`.
    init(query: String?, acceptLanguage: String?) {
        var chosen = "en"
        languageQuery = query.flatMap { Self.languages.contains($0) ? "?lang=\($0)" : nil } ?? ""
        if let query, Self.languages.contains(query) {
            chosen = query
        } else if let accept = acceptLanguage {
            let wanted = accept.split(separator: ",").compactMap { part -> String? in
                let tag = part.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                return tag.split(separator: "-").first.map(String.init)
            }
            chosen = wanted.first { Self.languages.contains($0) } ?? "en"
        }
        language = chosen
        table = Self.catalogue[chosen]!
    }

    /// The strings for a page request.
    init(_ request: Request) {
        self.init(
            query: request.uri.queryParameters["lang"].map(String.init),
            acceptLanguage: request.headers[.acceptLanguage]
        )
    }

    /// A count in words: `none` for 0, `one` for 1, `many` with `{n}` otherwise.
    func count(_ n: Int, none: String, one: String, many: String) -> String {
        n == 0 ? self[none] : n == 1 ? self[one] : format(many, n)
    }

    /// `key`'s text with `{n}` replaced.
    func format(_ key: String, _ n: Int) -> String { self[key].replacingOccurrences(of: "{n}", with: "\(n)") }

    /// `key`'s text with `{t}` replaced.
    func format(_ key: String, text: String) -> String { self[key].replacingOccurrences(of: "{t}", with: text) }

    /// A told wait as the printed ticket shows it (``WaitRange/shownMinutes(point:low:high:)``): "12 min
    /// (8–15)", the range the wait falls in four times out of five.
    func wait(seconds: Int, low: Int?, high: Int?) -> String {
        let (minutes, range) = WaitRange.shownMinutes(
            point: .seconds(seconds),
            low: low.map { .seconds($0) },
            high: high.map { .seconds($0) }
        )
        guard let range else { return format("minutes", minutes) }
        return format("minutes_range", minutes)
            .replacingOccurrences(of: "{lo}", with: "\(range.lowerBound)")
            .replacingOccurrences(of: "{hi}", with: "\(range.upperBound)")
    }

    /// `?lang=xx` when the page was asked for in a language by its switch, so links keep it; else empty.
    let languageQuery: String

    /// The words the page's script needs, as JSON safe inside a `<script>` element.
    var scriptJSON: String {
        let words = table.filter { key, _ in
            ["js.", "stage.", "ahead_", "error."].contains { key.hasPrefix($0) } || key.hasPrefix("minutes")
        }
        let data = (try? JSONSerialization.data(withJSONObject: words, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }
}
