/// Every word the shopper pages show, in English and Italian: one table per language, one key per string.
/// `weekday.0` is Monday (``BusinessDay/weekday``). `{n}` is a number filled in by the server or the page's script. Keys starting `js.`, `stage.`, `ahead_`,
/// `error.` and `minutes` go to the page's script too (``PageStrings/scriptTable``).
enum PageCatalogue {
    static let english: [String: String] = [
        "app": "CLup — line up from home", "language": "Language",
        // The ticket page.
        "ticket": "Ticket", "your_ticket": "Your ticket", "ahead_one": "1 person ahead of you",
        "ahead_many": "{n} people ahead of you", "ahead_none": "Nobody ahead of you", "wait": "Estimated wait",
        "minutes": "{n} min", "minutes_range": "{n} min ({lo}–{hi})",
        "stage.printing": "Printed — take it from the kiosk",
        "stage.booked": "Booked", "stage.waiting": "Waiting", "stage.called": "It is your turn — go to the door",
        "stage.admitted": "Admitted — welcome", "stage.expired": "Expired", "stage.cancelled": "Cancelled",
        "live": "This page updates by itself.", "reload": "Reload the page to see your place now.",
        "qr_label": "Your ticket's QR code: show it at the store's door",
        "visit": "Your visit", "valid_until": "valid until {t}",
        "cancel": "Cancel this ticket", "cancel_confirm": "Cancel this ticket? You lose your place in the line.",
        "cancel_yes": "Yes, cancel it", "cancel_no": "No, keep it",
        "notify": "Tell me when it is my turn",
        "js.opens": "The store opens at {t} — you are number {n} in line.",
        "js.called": "It is your turn — go to the store's door now.",
        "js.soon": "Get ready: {n} people ahead of you.", "js.soon_one": "Get ready: you are next.",
        "js.notify_denied": "Notifications are blocked in this browser; keep this page open.",
        "invalid_title": "Not a valid ticket",
        "invalid":
            "This code is not a ticket of a CLup store, or it was altered. Take a new ticket at the store's kiosk or in the app.",
        "unknown":
            "This ticket is no longer known: it is of an earlier day, or the store was closed. Take a new ticket.",
        "home": "Find a store", "problem": "That did not work",
        // The start page.
        "mine": "Your tickets", "find": "Find a store", "search_label": "Store name, street or town",
        "search": "Search", "near_me": "Stores near me", "results": "Stores",
        "no_stores": "No store found. Try another name or town.",
        "waiting_one": "1 person waiting", "waiting_many": "{n} people waiting", "waiting_none": "Nobody waiting",
        "wait_now": "wait for a ticket now: {t}", "km": "{t} km away",
        "closed_now": "Closed — opens at {t}", "tickets_from": "Virtual tickets from {t}.", "take": "Take a ticket",
        "book": "Book a visit",
        "needs_js": "Taking a ticket or booking needs JavaScript; viewing a ticket does not.",
        "js.locating": "Finding stores near you…",
        // The booking page.
        "book_title": "Book a visit", "day": "Day", "show_slots": "Show slots", "stay": "How long will you stay?",
        "stay_unknown": "Not sure", "slots_on": "Slots on {t}", "places_one": "1 place left",
        "places_many": "{n} places left", "full": "Full", "nearest": "nearest free:",
        "no_slots": "No slots on this day: the store is closed, or the day is over. Choose another day.",
        "back": "All stores",
        // Errors the pages show, by the API's status; the API's own (English) message otherwise.
        "error.400": "That was not accepted — check what you entered.",
        "error.409": "You already hold a ticket for this store — see Your tickets.",
        "error.409.book":
            "This slot has just filled up, or you hold as many bookings as allowed — choose another slot, or cancel a booking.",
        "error.409.cancel": "This ticket was already used, or it has expired.",
        "error.403": "Only the phone that took this ticket can cancel it.",
        "error.429":
            "Too many requests right now — wait a minute and try again, or take a paper ticket at the entrance.",
        "error.503":
            "This store's virtual line is full right now — try again later or take a paper ticket at the entrance.",
        "error.404": "This store or ticket is not known (any more).",
        "error.network": "No connection to CLup — check your connection and try again.",
        "error.location": "Your location is not available — search by name or town instead.",
        "error.other": "Something went wrong — try again.",
        "error.closed":
            "This store is closed now and hands out no tickets yet — see when above, or take a paper ticket at the entrance.",
        "weekday.0": "Monday", "weekday.1": "Tuesday", "weekday.2": "Wednesday", "weekday.3": "Thursday",
        "weekday.4": "Friday", "weekday.5": "Saturday", "weekday.6": "Sunday",
    ]

    static let italian: [String: String] = [
        "app": "CLup — fai la fila da casa", "language": "Lingua",
        "ticket": "Biglietto", "your_ticket": "Il tuo biglietto", "ahead_one": "1 persona prima di te",
        "ahead_many": "{n} persone prima di te", "ahead_none": "Nessuno prima di te", "wait": "Attesa stimata",
        "minutes": "{n} min", "minutes_range": "{n} min ({lo}–{hi})",
        "stage.printing": "Stampato — prendilo dal chiosco",
        "stage.booked": "Prenotato", "stage.waiting": "In attesa", "stage.called": "Tocca a te — vai all'ingresso",
        "stage.admitted": "Entrato — benvenuto", "stage.expired": "Scaduto", "stage.cancelled": "Annullato",
        "live": "Questa pagina si aggiorna da sola.", "reload": "Ricarica la pagina per vedere il tuo posto.",
        "qr_label": "Il codice QR del tuo biglietto: mostralo all'ingresso del negozio",
        "visit": "La tua visita", "valid_until": "valido fino alle {t}",
        "cancel": "Annulla questo biglietto",
        "cancel_confirm": "Annullare il biglietto? Perdi il tuo posto nella fila.",
        "cancel_yes": "Sì, annullalo", "cancel_no": "No, tienilo",
        "js.opens": "Il negozio apre alle {t} — sei il numero {n} in fila.",
        "notify": "Avvisami quando tocca a me",
        "js.called": "Tocca a te — vai subito all'ingresso del negozio.",
        "js.soon": "Preparati: {n} persone prima di te.", "js.soon_one": "Preparati: sei il prossimo.",
        "js.notify_denied": "Le notifiche sono bloccate in questo browser; tieni aperta questa pagina.",
        "invalid_title": "Biglietto non valido",
        "invalid":
            "Questo codice non è un biglietto di un negozio CLup, o è stato alterato. Prendi un nuovo biglietto al chiosco del negozio o nell'app.",
        "unknown":
            "Questo biglietto non è più noto: è di un giorno precedente, o il negozio è chiuso. Prendi un nuovo biglietto.",
        "home": "Trova un negozio", "problem": "Non è andato a buon fine",
        "mine": "I tuoi biglietti", "find": "Trova un negozio", "search_label": "Nome del negozio, via o città",
        "search": "Cerca", "near_me": "Negozi vicino a me", "results": "Negozi",
        "no_stores": "Nessun negozio trovato. Prova un altro nome o città.",
        "waiting_one": "1 persona in attesa", "waiting_many": "{n} persone in attesa",
        "waiting_none": "Nessuno in attesa",
        "wait_now": "attesa per un biglietto ora: {t}",
        "closed_now": "Chiuso — apre alle {t}", "tickets_from": "Biglietti virtuali dalle {t}.",
        "km": "a {t} km", "take": "Prendi un biglietto",
        "book": "Prenota una visita",
        "needs_js": "Per prendere un biglietto o prenotare serve JavaScript; per vedere un biglietto no.",
        "js.locating": "Cerco i negozi vicino a te…",
        "book_title": "Prenota una visita", "day": "Giorno", "show_slots": "Mostra le fasce",
        "stay": "Quanto tempo resterai?",
        "stay_unknown": "Non so", "slots_on": "Fasce di {t}", "places_one": "1 posto libero",
        "places_many": "{n} posti liberi", "full": "Pieno", "nearest": "le più vicine libere:",
        "no_slots":
            "Nessuna fascia in questo giorno: il negozio è chiuso, o il giorno è finito. Scegli un altro giorno.",
        "back": "Tutti i negozi",
        "error.400": "Non accettato — controlla quello che hai inserito.",
        "error.409": "Hai già un biglietto per questo negozio — vedi I tuoi biglietti.",
        "error.409.book":
            "Questa fascia si è appena riempita, o hai già tutte le prenotazioni permesse — scegli un'altra fascia, o annulla una prenotazione.",
        "error.409.cancel": "Questo biglietto è già stato usato, o è scaduto.",
        "error.403": "Solo il telefono che ha preso questo biglietto può annullarlo.",
        "error.429": "Troppe richieste ora — aspetta un minuto e riprova, o prendi un biglietto di carta all'ingresso.",
        "error.503":
            "La fila virtuale di questo negozio è piena ora — riprova più tardi o prendi un biglietto di carta all'ingresso.",
        "error.404": "Questo negozio o biglietto non è (più) noto.",
        "error.network": "Nessuna connessione con CLup — controlla la connessione e riprova.",
        "error.location": "La tua posizione non è disponibile — cerca per nome o città.",
        "error.closed":
            "Il negozio ora è chiuso e non distribuisce ancora biglietti — vedi sopra da quando, o prendi un biglietto di carta all'ingresso.",
        "error.other": "Qualcosa è andato storto — riprova.",
        "weekday.0": "lunedì", "weekday.1": "martedì", "weekday.2": "mercoledì", "weekday.3": "giovedì",
        "weekday.4": "venerdì", "weekday.5": "sabato", "weekday.6": "domenica",
    ]
}
