/// The store manager's page at `/`: the door's last decision (big, green or red, with the reason and the
/// ticket code), occupancy against capacity, who is next, the printer's state, and an exit button. It
/// follows `GET /events` (server-sent events) and says when it lost the station. No external resources:
/// it works on a kiosk with no internet. On another device than the box (a manager's tablet) the exit button
/// asks for the manager password first (``ManagersOnly``, `GET /session`, `POST /login`). Its words follow the
/// store's main language (`settings.languages` in the status), as the window display's do; a door decision's
/// detail is the kiosk's own (English) where its reason has no words here.
enum ManagerPage {
    static let html = LivePage.html(
        title: "CLup — door",
        style: """
              body { font-family: system-ui, sans-serif; margin: 0; background: #f4f4f4; color: #111; }
              header { display: flex; justify-content: space-between; padding: 0.6em 1em; background: #222; color: #fff; }
              #link.down { color: #f66; }
              main { display: grid; gap: 1em; padding: 1em; grid-template-columns: 2fr 1fr; }
              section { background: #fff; border-radius: 8px; padding: 1em; }
              #decision { grid-column: 1 / -1; text-align: center; font-size: 2.2em; min-height: 3.5em; }
              #decision.admit { background: #1b7d2e; color: #fff; }
              #decision.refuse { background: #b3261e; color: #fff; }
              #decision .code { font-size: 1.6em; font-weight: bold; display: block; }
              #occupancy { font-size: 3em; font-weight: bold; }
              #occupancy.full { color: #b3261e; }
              button { font-size: 1.6em; padding: 0.6em 1.2em; border-radius: 8px; border: 0; background: #0b57d0;
                       color: #fff; cursor: pointer; }
              button:disabled { background: #999; }
              .warn { color: #b3261e; font-weight: bold; }
              ol { font-size: 1.4em; margin: 0.3em 0; }
              #login { display: flex; gap: 0.5em; flex-wrap: wrap; align-items: center; margin-top: 0.6em; }
              #login[hidden] { display: none; }
              #login input { font-size: 1.3em; padding: 0.3em; }
              #login button, #logout { font-size: 1.2em; padding: 0.4em 0.8em; }
              #logout { margin-top: 0.6em; background: #555; }
              #logout[hidden] { display: none; }
              #staff { margin-top: 0.8em; font-size: 1.1em; }
              .staff { display: flex; gap: 0.5em; flex-wrap: wrap; align-items: center; margin-top: 0.6em; }
              .staff input { font-size: 1.2em; padding: 0.3em; max-width: 12em; }
              .staff button { font-size: 1.2em; padding: 0.4em 0.8em; }
            """,
        body: """
            <header><span id="store">CLup</span><span id="link">connecting…</span></header>
            <main>
              <section id="decision" aria-live="assertive"><span class="code">—</span><span id="message">waiting for a scan</span></section>
              <section>
                <div id="l-inside">Inside / capacity</div>
                <div id="occupancy">–</div>
                <p id="hours" class="warn" hidden></p>
                <button id="exit" type="button">Someone left</button>
                <div id="exitResult" role="status"></div>
                <p id="counted"></p>
                <details id="staff"><summary id="l-staff">Count / let in / pause</summary>
                  <form id="count-form" class="staff">
                    <label for="count-inside" id="l-count">People inside now</label>
                    <input id="count-inside" type="number" min="0" max="100000" required>
                    <button type="submit" id="count-button">Set the count</button>
                  </form>
                  <form id="letin-form" class="staff">
                    <label for="letin-people" id="l-people">People let in without a ticket</label>
                    <input id="letin-people" type="number" min="1" max="20" value="1" required>
                    <label for="letin-reason" id="l-reason">Why</label>
                    <input id="letin-reason" maxlength="120" required>
                    <button type="submit" id="letin-button">Let in</button>
                  </form>
                  <p id="paused" class="warn" hidden></p>
                  <form id="pause-form" class="staff">
                    <label for="pause-reason" id="l-pause-reason">Pause the calls — why</label>
                    <input id="pause-reason" maxlength="120" required>
                    <label for="pause-minutes" id="l-pause-minutes">Minutes</label>
                    <input id="pause-minutes" type="number" min="1" max="60" value="10" required>
                    <button type="submit" id="pause-button">Pause the calls</button>
                  </form>
                  <button type="button" id="resume-button" class="staff" hidden>Resume the calls</button>
                  <div id="staffResult" role="status"></div>
                </details>
                <form id="login" hidden>
                  <label for="password" id="l-password">Manager password</label>
                  <input id="password" type="password" autocomplete="current-password" maxlength="256" required>
                  <button type="submit" id="login-button">Log in</button>
                </form>
                <button id="logout" type="button" hidden>Log out</button>
                <p id="counts"></p>
              </section>
              <section>
                <div><span id="l-waiting">Waiting</span>: <b id="waiting">–</b></div>
                <ol id="next"></ol>
                <p id="printer"></p>
                <p id="scanner"></p>
                <p id="sync" class="warn" hidden></p>
              </section>
            </main>
            """,
        script: """
            // The words, by the store's main language (settings.languages in the status).
            const words = {
              en: { inside: "Inside / capacity", exit: "Someone left", password: "Manager password", login: "Log in",
                    logout: "Log out", waiting: "Waiting", scan: "waiting for a scan", admitted: "admitted",
                    refused: "refused", exits: "exits", scanner: "Scanner", exitKey: "exit key", printer: "Printer",
                    ticket: "ticket", waitingTicket: "waiting", paper: "paper", noDoor: "The door role is not enabled on this kiosk.",
                    newer: (n) => n + " events of a newer version of the server: update kioskd",
                    quarantined: (n) => n + " events the server refused: ",
                    askLogin: "Log in to use the buttons from this device.",
                    localOnly: "The buttons work only on the kiosk itself: no manager password is set (kioskd manager-password).",
                    loggedIn: "Logged in.", loggedOut: "Logged out.", unreachable: "could not reach the kiosk",
                    staff: "Count / let in / pause", count: "People inside now", setCount: "Set the count",
                    people: "People let in without a ticket", reason: "Why", letIn: "Let in", done: "Recorded.",
                    counted: (c) => c.inside + " counted at " + c.at + " by " + c.by,
                    pauseReason: "Pause the calls — why", minutes: "Minutes", pause: "Pause the calls",
                    resume: "Resume the calls",
                    paused: (p) => "Calls paused by " + p.by + (p.until ? " until " + p.until : "") + ": " + p.reason,
                    states: {}, reasons: {} },
              it: { inside: "Dentro / capienza", exit: "È uscito qualcuno", password: "Password del responsabile",
                    login: "Accedi", logout: "Esci", waiting: "In attesa", scan: "in attesa di una lettura",
                    admitted: "entrati", refused: "rifiutati", exits: "uscite", scanner: "Lettore",
                    exitKey: "tasto di uscita", printer: "Stampante", ticket: "biglietto", waitingTicket: "in attesa",
                    paper: "carta", noDoor: "Il ruolo di ingresso non è attivo su questo chiosco.",
                    newer: (n) => n + " eventi di una versione più nuova del server: aggiornate kioskd",
                    quarantined: (n) => n + " eventi rifiutati dal server: ",
                    askLogin: "Accedete per usare i pulsanti da questo dispositivo.",
                    localOnly: "I pulsanti funzionano solo sul chiosco: nessuna password del responsabile (kioskd manager-password).",
                    loggedIn: "Accesso eseguito.", loggedOut: "Uscita eseguita.", unreachable: "chiosco non raggiungibile",
                    staff: "Conta / fai entrare / sospendi", count: "Persone dentro ora", setCount: "Imposta il conteggio",
                    people: "Persone fatte entrare senza biglietto", reason: "Perché", letIn: "Fai entrare",
                    done: "Registrato.", counted: (c) => c.inside + " contate alle " + c.at + " da " + c.by,
                    pauseReason: "Sospendi le chiamate — perché", minutes: "Minuti", pause: "Sospendi le chiamate",
                    resume: "Riprendi le chiamate",
                    paused: (p) => "Chiamate sospese da " + p.by + (p.until ? " fino alle " + p.until : "") + ": " + p.reason,
                    states: { starting: "in avvio", ready: "pronto", printing: "in stampa", disconnected: "scollegato",
                              fault: "guasto", closed: "chiuso", clock_wrong: "orologio sbagliato", stopped: "fermo",
                              out: "finita", near_end: "quasi finita" },
                    reasons: { admit: "benvenuti", not_your_turn: "non è ancora il vostro turno",
                               store_full: "negozio pieno — attendete la chiamata", already_used: "biglietto già usato",
                               expired: "biglietto scaduto: prendetene uno nuovo",
                               previous_day: "biglietto di un altro giorno: prendetene uno nuovo",
                               closed: "il negozio è chiuso", cancelled: "biglietto annullato",
                               paused: "chiamate sospese — il biglietto tiene il suo posto",
                               too_early: "prenotazione non ancora iniziata", too_late: "prenotazione in ritardo: prendete un biglietto",
                               wrong_store: "biglietto di un altro negozio", forged: "biglietto non valido",
                               unreadable: "codice illeggibile: leggete di nuovo",
                               unknown_ticket: "biglietto non ancora noto: attendete e leggete di nuovo",
                               not_recorded: "l'ingresso non può registrare ora: attendete il personale" } },
            };
            let w = words.en;
            function languages(s) {
              const main = ((s.settings && s.settings.languages && s.settings.languages.value) || ["en"])[0];
              w = words[main] || words.en;
              document.documentElement.lang = words[main] ? main : "en";
              $("l-inside").textContent = w.inside;
              $("exit").textContent = w.exit;
              $("l-password").textContent = w.password;
              $("login-button").textContent = w.login;
              $("logout").textContent = w.logout;
              $("l-waiting").textContent = w.waiting;
              $("l-staff").textContent = w.staff;
              $("l-count").textContent = w.count;
              $("count-button").textContent = w.setCount;
              $("l-people").textContent = w.people;
              $("l-reason").textContent = w.reason;
              $("letin-button").textContent = w.letIn;
              $("l-pause-reason").textContent = w.pauseReason;
              $("l-pause-minutes").textContent = w.minutes;
              $("pause-button").textContent = w.pause;
              $("resume-button").textContent = w.resume;
            }
            const state = (name) => w.states[name] || String(name).replace("_", " ");
            // The note under the exit button, by its words' key, so that it follows the language (null: the
            // kiosk's own answer is shown as it came).
            let noteKey = null;
            function note(key) { noteKey = key; $("exitResult").textContent = key ? w[key] : ""; }
            let last = null;
            function render(s) {
              last = s;
              languages(s);
              if (noteKey) $("exitResult").textContent = w[noteKey];
              $("store").textContent = s.store + " · " + s.device;
              const q = s.queue;
              $("occupancy").textContent = q.inside + " / " + q.capacity;
              $("occupancy").className = q.inside >= q.capacity ? "full" : "";
              $("hours").textContent = q.notice || "";
              $("hours").hidden = !q.notice;
              $("waiting").textContent = q.waiting;
              $("counted").textContent = q.counted ? w.counted(q.counted) : "";
              $("paused").textContent = q.paused ? w.paused(q.paused) : "";
              $("paused").hidden = !q.paused;
              $("pause-form").hidden = !!q.paused;
              $("resume-button").hidden = !q.paused;
              $("staff").hidden = !s.door;
              $("next").replaceChildren(...q.next.slice(0, 8).map((c) => {
                const li = document.createElement("li"); li.textContent = c; return li; }));
              const d = s.door;
              if (d) {
                $("exit").disabled = !q.exitCounts || !mayPress;
                $("counts").textContent = w.admitted + " " + d.admitted + " · " + w.refused + " " + d.refused + " · "
                  + w.exits + " " + d.exits;
                $("scanner").textContent = w.scanner + ": " + state(d.state) + (d.exitInput ? " · " + w.exitKey + ": " + d.exitInput : "");
                $("scanner").className = d.state == "ready" ? "" : "warn";
                if (d.last) {
                  $("decision").className = d.last.reason == "admit" ? "admit" : "refuse";
                  $("decision").querySelector(".code").textContent = d.last.code || "—";
                  $("message").textContent = w.reasons[d.last.reason] || d.last.message;
                } else {
                  $("message").textContent = w.scan;
                }
              } else {
                $("exit").disabled = true;
                $("scanner").textContent = w.noDoor;
              }
              const y = s.sync;
              const notes = [];
              if (y && y.upgradeRequired) notes.push(y.upgradeRequired);
              if (y && y.newerEvents > 0) notes.push(w.newer(y.newerEvents));
              if (y && y.quarantined > 0) notes.push(w.quarantined(y.quarantined) + (y.lastRefusal || ""));
              $("sync").textContent = notes.join(" · ");
              $("sync").hidden = notes.length == 0;
              const p = s.printer;
              if (p) {
                let text = w.printer + ": " + state(p.state)
                  + (p.waitingTicket ? " · " + w.ticket + " " + p.waitingTicket + " " + w.waitingTicket : "");
                if (p.paper != "ok") text += " · " + w.paper + " " + state(p.paper);
                if (p.action) text += " — " + p.action;
                $("printer").textContent = text;
                $("printer").className = p.state == "ready" || p.state == "printing" ? "" : "warn";
              }
            }
            let mayPress = true;
            function askLogin(key, message) {
              mayPress = false;
              $("login").hidden = false;
              if (key) note(key); else { noteKey = null; $("exitResult").textContent = message; }
              if (last) render(last);
            }
            fetch("session").then((r) => r.json()).then((s) => {
              if (s.local) return;
              if (s.manager) { $("logout").hidden = false; return; }
              if (s.passwordSet) askLogin("askLogin");
              else { mayPress = false; note("localOnly"); if (last) render(last); }
            }).catch(() => {});
            $("login").addEventListener("submit", async (e) => {
              e.preventDefault();
              try {
                const r = await fetch("login", { method: "POST", headers: { "Content-Type": "application/json" },
                  body: JSON.stringify({ password: $("password").value }) });
                $("password").value = "";
                if (r.ok) {
                  mayPress = true; $("login").hidden = true; $("logout").hidden = false;
                  note("loggedIn");
                  if (last) render(last);
                } else { noteKey = null; $("exitResult").textContent = (await r.json()).error; }
              } catch (e) { note("unreachable"); }
            });
            // A tablet shared by the shift: log out ends the session here and on the kiosk.
            $("logout").addEventListener("click", async () => {
              try { await fetch("logout", { method: "POST" }); } catch (e) {}
              $("logout").hidden = true;
              askLogin("loggedOut");
            });
            // Staff's count and people let in: the kiosk's answer (an error says what to send) under the forms.
            async function staff(path, body) {
              try {
                const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
                  body: JSON.stringify(body) });
                if (r.status == 401) askLogin(null, (await r.json()).error);
                $("staffResult").textContent = r.ok ? w.done : (await r.json()).error;
                return r.ok;
              } catch (e) { $("staffResult").textContent = w.unreachable; return false; }
            }
            $("count-form").addEventListener("submit", async (e) => {
              e.preventDefault();
              await staff("door/count", { inside: Number($("count-inside").value) });
            });
            $("letin-form").addEventListener("submit", async (e) => {
              e.preventDefault();
              if (await staff("door/let-in", { people: Number($("letin-people").value), reason: $("letin-reason").value }))
                $("letin-reason").value = "";
            });
            $("pause-form").addEventListener("submit", async (e) => {
              e.preventDefault();
              if (await staff("door/pause", { reason: $("pause-reason").value, minutes: Number($("pause-minutes").value) }))
                $("pause-reason").value = "";
            });
            $("resume-button").addEventListener("click", () => staff("door/resume", {}));
            $("exit").addEventListener("click", async () => {
              try {
                const r = await fetch("door/exit", { method: "POST" });
                if (r.status == 401) askLogin(null, (await r.json()).error);
                else if (r.ok) note(null);
                else { noteKey = null; $("exitResult").textContent = (await r.json()).error; }
              } catch (e) { note("unreachable"); }
            });
            """
    )
}
