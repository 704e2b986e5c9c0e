/// The words of a printed ticket, in each language a store prints in (``SpokenLanguage``). Plain letters: a
/// thermal printer's code page has no room for every accent, and every phrase reads without one.
struct TicketWords: Sendable {
    let phrases: [String: String]

    static func of(_ language: SpokenLanguage) -> TicketWords {
        switch language {
        case .english: return TicketWords(phrases: english)
        case .italian: return TicketWords(phrases: italian)
        }
    }

    /// The phrase `key` with `{n}`, `{m}`, `{r}` and `{t}` filled in.
    func fill(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = phrases[key] ?? Self.english[key] ?? key
        for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
        return text
    }

    static let english = [
        "opens": "Store opens at {t}", "nobody": "Nobody ahead", "one": "1 person ahead", "many": "{n} people ahead",
        "about": "about {m} min{r}", "go": "go to the door", "at_opening": "called at opening",
        "after_opening": "about {m} min after opening{r}",
    ]

    static let italian = [
        "opens": "Il negozio apre alle {t}", "nobody": "Nessuno davanti", "one": "1 persona davanti",
        "many": "{n} persone davanti", "about": "circa {m} min{r}", "go": "vai all'ingresso",
        "at_opening": "chiamato all'apertura", "after_opening": "circa {m} min dopo l'apertura{r}",
    ]
}
