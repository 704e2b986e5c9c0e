/// The words of a printed ticket, in each language a store prints in (``SpokenLanguage``). Plain letters: a
/// thermal printer's code page has no room for every accent, and every phrase reads without one.
/// Filled in by ``SpokenCatalogue/fill(_:_:)``: `{n}`, `{m}`, `{r}` and `{t}`.
enum TicketWords {
    static func of(_ language: SpokenLanguage) -> SpokenCatalogue {
        switch language {
        case .english: return SpokenCatalogue(phrases: english)
        case .italian: return SpokenCatalogue(phrases: italian)
        }
    }

    /// Monday first.
    static func weekdays(_ language: SpokenLanguage) -> [String] {
        switch language {
        case .english: return StoreCalendar.englishWeekdays
        case .italian: return ["lunedi", "martedi", "mercoledi", "giovedi", "venerdi", "sabato", "domenica"]
        }
    }

    static let english = [
        "opens": "Store opens at {t}", "opens_on": "Store opens {d} at {t}", "nobody": "Nobody ahead",
        "one": "1 person ahead", "many": "{n} people ahead",
        "about": "about {m} min{r}", "go": "go to the door", "at_opening": "called at opening",
        "after_opening": "about {m} min after opening{r}",
        "paused": "Calls paused for a moment", "paused_until": "Calls paused until {t}",
        "wait_call": "wait for your call", "follow": "Scan the code to follow your place",
        "walk_back": "Follow it on your phone: we tell you when to walk back",
    ]

    static let italian = [
        "opens": "Il negozio apre alle {t}", "opens_on": "Il negozio apre {d} alle {t}", "nobody": "Nessuno davanti",
        "one": "1 persona davanti",
        "many": "{n} persone davanti", "about": "circa {m} min{r}", "go": "vai all'ingresso",
        "at_opening": "chiamato all'apertura", "after_opening": "circa {m} min dopo l'apertura{r}",
        "paused": "Chiamate sospese per un momento", "paused_until": "Chiamate sospese fino alle {t}",
        "wait_call": "attendi la chiamata", "follow": "Inquadra il codice per seguire il tuo turno",
        "walk_back": "Seguilo sul telefono: ti diciamo quando tornare",
    ]
}
