/// The now-serving display at `/display`, for a screen in the store window: the codes called to the door,
/// the last five called (for whoever missed a call), how many wait, the estimated wait for a ticket taken
/// now, and a warning when the printer cannot give tickets (out of paper, a fault, unplugged). Big, high
/// contrast and legible from the street; each new call is also announced to a screen reader (a polite live
/// region that says only what is new). In the store's languages (``StoreSchedule/languages``, in `/status`):
/// every label in the main one with a second language's beside it, what changes in the main one. Follows `GET
/// /events` and says when it lost the kiosk. No external resources: it works on a kiosk with no internet.
enum DisplayPage {
    static let html = LivePage.html(
        title: "CLup — now serving",
        style: """
              html, body { height: 100%; margin: 0; }
              body { font-family: system-ui, sans-serif; background: #0d1b2a; color: #fff; display: flex;
                     flex-direction: column; }
              header { font-size: 3vw; padding: 1vh 2vw; display: flex; justify-content: space-between; }
              #link { font-size: 1.8vw; color: #9fb3c8; }
              #link.down { color: #ff8a80; }
              main { flex: 1; display: grid; grid-template-columns: 3fr 2fr; gap: 2vw; padding: 2vw; }
              .label { font-size: min(2.4vw, 4vh); color: #9fb3c8; text-transform: uppercase; letter-spacing: 0.1em;
                       margin: 0; font-weight: 400; }
              #recent + .label, .figure + .label { margin-top: 2vh; }
              #called { font-size: min(11vw, 24vh); font-weight: 800; line-height: 1.05; display: flex;
                        flex-wrap: wrap; gap: 0 4vw; color: #7CFC9A; }
              #called.none { font-size: min(5vw, 9vh); color: #9fb3c8; font-weight: 400; }
              .figure { font-size: min(7vw, 13vh); font-weight: 800; line-height: 1.1; margin-bottom: 2vh; }
              .unit { font-size: min(3vw, 5vh); font-weight: 400; }
              #notice { font-size: 3.4vw; font-weight: 700; padding: 2vh 2vw; background: #b3261e; display: none; }
              #notice.shown { display: block; }
              #recent { font-size: min(4.5vw, 8vh); font-weight: 700; display: flex; flex-wrap: wrap; gap: 0 3vw;
                        color: #e0e8f0; margin-top: 1vh; }
              #footer { font-size: min(3vw, 5vh); text-align: center; color: #e0e8f0; margin: 0 2vw 2vh; }
              .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
                                 clip: rect(0 0 0 0); white-space: nowrap; }
            """,
        body: """
            <header><span id="store">CLup</span><span id="link">connecting…</span></header>
            <div id="notice" role="alert"></div>
            <main>
              <section>
                <h1 class="label" id="l-now">Now serving</h1>
                <div id="called" class="none">—</div>
                <h2 class="label" id="l-last">Last called</h2>
                <div id="recent">—</div>
                <div id="announce" class="visually-hidden" role="status" aria-live="polite"></div>
              </section>
              <section>
                <h2 class="label" id="l-waiting">Waiting</h2>
                <div class="figure"><span id="waiting">–</span> <span class="unit" id="people">people</span></div>
                <h2 class="label" id="l-wait">Wait for a new ticket</h2>
                <div class="figure"><span id="wait">–</span> <span class="unit">min</span></div>
                <h2 class="label" id="l-inside">Inside</h2>
                <div class="figure"><span id="inside">–</span><span class="unit"> / <span id="capacity">–</span></span></div>
              </section>
            </main>
            <footer id="footer"></footer>
            """,
        script: """
            // The words, by language (the store's: settings.languages in the status, the main one first).
            const words = {
              en: { now: "Now serving", last: "Last called", waiting: "Waiting", wait: "Wait for a new ticket",
                    inside: "Inside", person: "person", people: "people", noTickets: "no tickets for a moment",
                    closed: "Closed", pleaseWait: "please wait", goIn: "take a ticket and go in",
                    at: (day, clock) => (day ? day + " " : "") + "at " + clock,
                    from: (day, clock) => (day ? day + " " : "") + clock,
                    closedUntil: (t) => "Closed — the store opens " + t,
                    closedTickets: (f, t) => "Closed — tickets from " + f + ", the store opens " + t, days: {},
                    paused: (p) => "Calls paused" + (p.until ? " until " + p.until : "") + " — " + p.reason
                      + " — everyone keeps their place",
                    call: (c) => "Number " + c + ", please come to the entrance.",
                    clock: "The kiosk's clock is not set — please ask a member of staff.",
                    paper: "The ticket printer is out of paper — please ask a member of staff.",
                    printer: "The ticket printer is not working — please ask a member of staff.",
                    update: "This kiosk needs a software update — please ask a member of staff.",
                    lastTickets: "No more tickets today: the wait would pass closing time." },
              it: { now: "Chiamati ora", last: "Ultimi chiamati", waiting: "In attesa",
                    wait: "Attesa per un nuovo biglietto", inside: "Dentro", person: "persona", people: "persone",
                    noTickets: "niente biglietti per un momento", closed: "Chiuso", pleaseWait: "attendere, prego",
                    at: (day, clock) => (day ? day + " " : "") + "alle " + clock,
                    from: (day, clock) => day ? "da " + day + " alle " + clock : "dalle " + clock,
                    closedUntil: (t) => "Chiuso — il negozio apre " + t,
                    closedTickets: (f, t) => "Chiuso — biglietti " + f + ", il negozio apre " + t,
                    paused: (p) => "Chiamate sospese" + (p.until ? " fino alle " + p.until : "") + " — " + p.reason
                      + " — ognuno tiene il suo posto",
                    days: { Monday: "lunedì", Tuesday: "martedì", Wednesday: "mercoledì", Thursday: "giovedì",
                            Friday: "venerdì", Saturday: "sabato", Sunday: "domenica" },
                    goIn: "prendete un biglietto ed entrate",
                    call: (c) => "Numero " + c + ", si avvicini all'ingresso, per favore.",
                    clock: "L'orologio del chiosco non è regolato — chiedete al personale.",
                    paper: "La stampante dei biglietti è senza carta — chiedete al personale.",
                    printer: "La stampante dei biglietti non funziona — chiedete al personale.",
                    update: "Questo chiosco va aggiornato — chiedete al personale.",
                    lastTickets: "Niente più biglietti oggi: l'attesa supererebbe l'orario di chiusura." },
            };
            let w = words.en;
            function languages(s) {
              const codes = ((s.settings && s.settings.languages && s.settings.languages.value) || ["en"])
                .filter((c) => words[c]);
              if (codes.length === 0) codes.push("en");
              w = words[codes[0]];
              document.documentElement.lang = codes[0];
              const second = codes.length > 1 ? words[codes[1]] : null;
              for (const key of ["now", "last", "waiting", "wait", "inside"]) {
                $("l-" + key).textContent = w[key] + (second ? " · " + second[key] : "");
              }
            }
            // The newest call announced so far: the live region says only calls newer than it (none on the
            // first render: what was called before the page opened is on the screen, not news).
            let announced;
            function announce(recent) {
              if (announced !== undefined && recent.length > 0 && recent[0] !== announced) {
                const seen = recent.indexOf(announced);
                const fresh = (seen < 0 ? recent : recent.slice(0, seen)).slice().reverse();
                $("announce").textContent = fresh.map(w.call).join(" ");
              }
              announced = recent.length > 0 ? recent[0] : (announced === undefined ? null : announced);
            }
            function codes(list) {
              return list.map((c) => { const span = document.createElement("span"); span.textContent = c; return span; });
            }
            // A time as the status says it ("07:00", or "Monday 07:00" a day or more ahead), in the main language.
            function when(text, form) {
              const parts = String(text).split(" ");
              const day = parts.length == 2 ? (w.days[parts[0]] || parts[0]) : null;
              return (form || w.at)(day, parts[parts.length - 1]);
            }
            function closedText(q) {
              if (!q.opensAt) return w.closed;
              return q.ticketsFrom
                ? w.closedTickets(when(q.ticketsFrom, w.from), when(q.opensAt)) : w.closedUntil(when(q.opensAt));
            }
            function render(s) {
              languages(s);
              $("store").textContent = s.store;
              const q = s.queue;
              const recent = q.recentlyCalled || [];
              announce(recent);
              if (recent.length > 0) $("recent").replaceChildren(...codes(recent)); else $("recent").textContent = "—";
              const called = $("called");
              const clockWrong = s.clock && !s.clock.trusted;
              if (clockWrong) {
                called.className = "none";
                called.textContent = w.noTickets;
              } else if (!q.open) {
                called.className = "none";
                called.textContent = closedText(q);
              } else if (q.paused) {
                called.className = "none";
                called.textContent = w.paused(q.paused);
              } else if (q.called.length > 0) {
                called.className = "";
                called.replaceChildren(...codes(q.called.slice(0, 6)));
              } else {
                called.className = "none";
                // Nobody called: either people wait for a place, or the next ticket is called at once.
                called.textContent = q.waiting > 0 || q.inside >= q.capacity ? w.pleaseWait : w.goIn;
              }
              $("waiting").textContent = q.waiting;
              $("people").textContent = q.waiting == 1 ? w.person : w.people;
              $("wait").textContent = q.estimatedWaitLowMinutes < q.estimatedWaitHighMinutes && q.estimatedWaitMinutes > 0
                ? q.estimatedWaitLowMinutes + "–" + q.estimatedWaitHighMinutes : q.estimatedWaitMinutes;
              $("inside").textContent = q.inside;
              $("capacity").textContent = q.capacity;
              const p = s.printer;
              let notice = "";
              if (clockWrong) notice = w.clock;
              else if (p && p.paper == "out") notice = w.paper;
              else if (p && (p.state == "fault" || p.state == "disconnected")) notice = w.printer;
              else if (s.sync && s.sync.upgradeRequired) notice = w.update;
              else if (p && p.state == "past_closing") notice = w.lastTickets;
              $("notice").textContent = notice;
              $("notice").className = notice ? "shown" : "";
              // The store's own line (the console's footer, the same as under each ticket).
              $("footer").textContent = (s.settings && s.settings.footer && s.settings.footer.value) || "";
            }
            """
    )
}
