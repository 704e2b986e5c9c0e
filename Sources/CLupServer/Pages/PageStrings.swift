import Foundation

/// Every word the pages show, in each language they speak: English and Italian. A page takes the language
/// from `?lang=` (the page's own switch), else the browser's `Accept-Language`, else English.
struct PageStrings: Sendable {
    let language: String
    let table: [String: String]

    subscript(_ key: String) -> String { table[key] ?? Self.catalogue["en"]![key] ?? key }

    static let languages = ["en", "it"]

    static let catalogue: [String: [String: String]] = [
        "en": [
            "ticket": "Ticket", "your_ticket": "Your ticket", "ahead_one": "1 person ahead of you",
            "ahead_many": "{n} people ahead of you", "ahead_none": "Nobody ahead of you", "wait": "Estimated wait",
            "minutes": "{n} min", "stage.printing": "Printed — take it from the kiosk",
            "stage.booked": "Booked", "stage.waiting": "Waiting", "stage.called": "It is your turn — go to the door",
            "stage.admitted": "Admitted — welcome", "stage.expired": "Expired", "stage.cancelled": "Cancelled",
            "live": "This page updates by itself.", "reload": "Reload the page to see your place now.",
            "invalid_title": "Not a valid ticket",
            "invalid":
                "This code is not a ticket of a CLup store, or it was altered. Take a new ticket at the store's kiosk or in the app.",
            "unknown":
                "This ticket is no longer known: it is of an earlier day, or the store was closed. Take a new ticket.",
            "language": "Language",
        ],
        "it": [
            "ticket": "Biglietto", "your_ticket": "Il tuo biglietto", "ahead_one": "1 persona prima di te",
            "ahead_many": "{n} persone prima di te", "ahead_none": "Nessuno prima di te", "wait": "Attesa stimata",
            "minutes": "{n} min", "stage.printing": "Stampato — prendilo dal chiosco",
            "stage.booked": "Prenotato", "stage.waiting": "In attesa", "stage.called": "Tocca a te — vai all'ingresso",
            "stage.admitted": "Entrato — benvenuto", "stage.expired": "Scaduto", "stage.cancelled": "Annullato",
            "live": "Questa pagina si aggiorna da sola.", "reload": "Ricarica la pagina per vedere il tuo posto.",
            "invalid_title": "Biglietto non valido",
            "invalid":
                "Questo codice non è un biglietto di un negozio CLup, o è stato alterato. Prendi un nuovo biglietto al chiosco del negozio o nell'app.",
            "unknown":
                "Questo biglietto non è più noto: è di un giorno precedente, o il negozio è chiuso. Prendi un nuovo biglietto.",
            "language": "Lingua",
        ],
    ]

    /// The strings for a request: `?lang=`, else the first supported language of `Accept-Language`.
    init(query: String?, acceptLanguage: String?) {
        var chosen = "en"
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

    /// `key`'s text with `{n}` replaced.
    func format(_ key: String, _ n: Int) -> String { self[key].replacingOccurrences(of: "{n}", with: "\(n)") }

    /// The words the page's script needs to update itself, as JSON.
    var scriptTable: [String: String] {
        table.filter { $0.key.hasPrefix("stage.") || $0.key.hasPrefix("ahead_") || $0.key == "minutes" }
    }
}
