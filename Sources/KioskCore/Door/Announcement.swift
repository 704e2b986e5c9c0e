/// What the kiosk says aloud (issue "the entrance without staff"): the number and the wait when a ticket is
/// taken, the door's decision, and a call. Speech is made on the box from these texts; this only decides the
/// words, in each of the store's languages, from one catalogue per language (``SpokenCatalogue``).
public enum Announcement: Sendable, Equatable {
    /// A ticket was taken from the printer: its number, and the wait it was told (nil: none told).
    case yourNumber(TicketCode, wait: Duration?)
    /// The door's decision on a scan.
    case decision(AdmissionDecision)
    /// A ticket is called to the entrance (the speaker plays a chime first).
    case called(TicketCode)
    /// A called ticket not seen at the door is called again (the store's second call, ``RecallPolicy``).
    case calledAgain(TicketCode)
    /// Staff paused the calls (``LinePause``).
    case callsPaused

    /// The words in `language`.
    public func text(in language: SpokenLanguage) -> String {
        let words = SpokenCatalogue.table(language)
        switch self {
        case .yourNumber(let code, let wait):
            let number = words.fill("your_number", ["code": Self.spelled(code)])
            guard let wait, wait > .zero else { return number }
            return number + " " + words.minutes(wait.minutesRoundedUp)
        case .called(let code):
            return words.fill("called", ["code": Self.spelled(code)])
        case .calledAgain(let code):
            return words.fill("called_again", ["code": Self.spelled(code)])
        case .callsPaused:
            return words.fill("calls_paused")
        case .decision(let decision):
            if case .notYourTurn(let ahead) = decision {
                return words.fill(ahead == 1 ? "not_your_turn_one" : "not_your_turn", ["n": "\(ahead)"])
            }
            return words.fill("decision.\(decision.reason)", [:])
        }
    }

    /// A code as it is read out: its letters and each digit apart ("A 0 4 3"), so that a voice says
    /// "A zero four three", never "forty-three".
    public static func spelled(_ code: TicketCode) -> String {
        code.description.map(String.init).joined(separator: " ")
    }
}

/// The languages the kiosk speaks.
public enum SpokenLanguage: String, Sendable, CaseIterable {
    case english = "en"
    case italian = "it"
}

/// One table of phrases per language, one key per phrase; `{code}`, `{n}` and the like are filled in. The
/// voice's tables are here; the printed ticket's are ``TicketWords``.
public struct SpokenCatalogue: Sendable {
    let phrases: [String: String]

    static func table(_ language: SpokenLanguage) -> SpokenCatalogue {
        switch language {
        case .english: return SpokenCatalogue(phrases: english)
        case .italian: return SpokenCatalogue(phrases: italian)
        }
    }

    func fill(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = phrases[key] ?? key
        for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
        return text
    }

    func minutes(_ n: Int) -> String { fill(n == 1 ? "wait_one" : "wait", ["n": "\(n)"]) }

    static let english: [String: String] = [
        "your_number": "Your number is {code}.", "wait": "About {n} minutes.", "wait_one": "About 1 minute.",
        "called": "Number {code}, please come to the entrance.",
        "called_again": "Number {code}, again: please come to the entrance now.",
        "calls_paused": "Calls are paused for a moment. Everyone keeps their place in line.",
        "not_your_turn": "Not your turn yet: {n} people before you.",
        "not_your_turn_one": "Not your turn yet: 1 person before you.",
        "decision.admit": "Please come in.", "decision.store_full": "The store is full, please wait.",
        "decision.already_used": "This ticket was already used.",
        "decision.expired": "This ticket has expired. Please take a new one.",
        "decision.previous_day": "This ticket was for an earlier day. Please take a new one.",
        "decision.closed": "The store is closed now.", "decision.cancelled": "This ticket was cancelled.",
        "decision.paused": "Calls are paused for a moment. You keep your place.",
        "decision.too_early": "Your booking has not started yet.",
        "decision.too_late": "Your booking time has passed. Please take a new ticket.",
        "decision.wrong_store": "This ticket is for another store.",
        "decision.forged": "This ticket is not valid. Please take a new one.",
        "decision.unreadable": "The code could not be read. Please try again.",
        "decision.unknown_ticket": "This ticket is not known yet. Please try again in a moment.",
        "decision.not_recorded": "The door cannot record entries now. Please wait.",
    ]

    static let italian: [String: String] = [
        "your_number": "Il suo numero è {code}.", "wait": "Circa {n} minuti.", "wait_one": "Circa 1 minuto.",
        "called": "Numero {code}, si avvicini all'ingresso, per favore.",
        "called_again": "Numero {code}, di nuovo: si avvicini all'ingresso adesso.",
        "calls_paused": "Le chiamate sono sospese per un momento. Ognuno mantiene il suo posto in fila.",
        "not_your_turn": "Non è ancora il suo turno: {n} persone prima di lei.",
        "not_your_turn_one": "Non è ancora il suo turno: 1 persona prima di lei.",
        "decision.admit": "Prego, entri.", "decision.store_full": "Il negozio è pieno, attenda per favore.",
        "decision.already_used": "Questo biglietto è già stato usato.",
        "decision.expired": "Questo biglietto è scaduto. Ne prenda uno nuovo.",
        "decision.previous_day": "Questo biglietto era per un giorno precedente. Ne prenda uno nuovo.",
        "decision.closed": "Il negozio ora è chiuso.", "decision.cancelled": "Questo biglietto è stato annullato.",
        "decision.paused": "Le chiamate sono sospese per un momento. Mantiene il suo posto.",
        "decision.too_early": "La sua prenotazione non è ancora iniziata.",
        "decision.too_late": "L'orario della sua prenotazione è passato. Prenda un nuovo biglietto.",
        "decision.wrong_store": "Questo biglietto è per un altro negozio.",
        "decision.forged": "Questo biglietto non è valido. Ne prenda uno nuovo.",
        "decision.unreadable": "Il codice non si legge. Riprovi, per favore.",
        "decision.unknown_ticket": "Questo biglietto non è ancora noto. Riprovi tra un momento.",
        "decision.not_recorded": "La porta non può registrare gli ingressi ora. Attenda, per favore.",
    ]
}
