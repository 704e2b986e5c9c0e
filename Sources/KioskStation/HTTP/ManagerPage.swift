/// The store manager's page at `/`: the door's last decision (big, green or red, with the reason and the
/// ticket code), occupancy against capacity, who is next, the printer's state, and an exit button. It
/// follows `GET /events` (server-sent events) and says when it lost the station. No external resources:
/// it works on a kiosk with no internet. On another device than the box (a manager's tablet) the exit button
/// asks for the manager password first (``ManagersOnly``, `GET /session`, `POST /login`).
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
            """,
        body: """
            <header><span id="store">CLup</span><span id="link">connecting…</span></header>
            <main>
              <section id="decision" aria-live="assertive"><span class="code">—</span><span id="message">waiting for a scan</span></section>
              <section>
                <div>Inside / capacity</div>
                <div id="occupancy">–</div>
                <p id="hours" class="warn" hidden></p>
                <button id="exit" type="button">Someone left</button>
                <div id="exitResult" role="status"></div>
                <form id="login" hidden>
                  <label for="password">Manager password</label>
                  <input id="password" type="password" autocomplete="current-password" maxlength="256" required>
                  <button type="submit">Log in</button>
                </form>
                <button id="logout" type="button" hidden>Log out</button>
                <p id="counts"></p>
              </section>
              <section>
                <div>Waiting: <b id="waiting">–</b></div>
                <ol id="next"></ol>
                <p id="printer"></p>
                <p id="scanner"></p>
                <p id="sync" class="warn" hidden></p>
              </section>
            </main>
            """,
        script: """
            let last = null;
            function render(s) {
              last = s;
              $("store").textContent = s.store + " · " + s.device;
              const q = s.queue;
              $("occupancy").textContent = q.inside + " / " + q.capacity;
              $("occupancy").className = q.inside >= q.capacity ? "full" : "";
              $("hours").textContent = q.notice || "";
              $("hours").hidden = !q.notice;
              $("waiting").textContent = q.waiting;
              $("next").replaceChildren(...q.next.slice(0, 8).map((c) => {
                const li = document.createElement("li"); li.textContent = c; return li; }));
              const d = s.door;
              if (d) {
                $("exit").disabled = !q.exitCounts || !mayPress;
                $("counts").textContent = "admitted " + d.admitted + " · refused " + d.refused + " · exits " + d.exits;
                $("scanner").textContent = "Scanner: " + d.state + (d.exitInput ? " · exit key: " + d.exitInput : "");
                $("scanner").className = d.state == "ready" ? "" : "warn";
                if (d.last) {
                  $("decision").className = d.last.reason == "admit" ? "admit" : "refuse";
                  $("decision").querySelector(".code").textContent = d.last.code || "—";
                  $("message").textContent = d.last.message;
                }
              } else {
                $("exit").disabled = true;
                $("scanner").textContent = "The door role is not enabled on this kiosk.";
              }
              const y = s.sync;
              const notes = [];
              if (y && y.upgradeRequired) notes.push(y.upgradeRequired);
              if (y && y.newerEvents > 0) notes.push(y.newerEvents + " events of a newer version of the server: update kioskd");
              if (y && y.quarantined > 0) notes.push(y.quarantined + " events the server refused: " + (y.lastRefusal || ""));
              $("sync").textContent = notes.join(" · ");
              $("sync").hidden = notes.length == 0;
              const p = s.printer;
              if (p) {
                let text = "Printer: " + p.state + (p.waitingTicket ? " · ticket " + p.waitingTicket + " waiting" : "");
                if (p.paper != "ok") text += " · paper " + p.paper.replace("_", " ");
                if (p.action) text += " — " + p.action;
                $("printer").textContent = text;
                $("printer").className = p.state == "ready" || p.state == "printing" ? "" : "warn";
              }
            }
            let mayPress = true;
            function askLogin(message) {
              mayPress = false;
              if (last) render(last);
              $("login").hidden = false;
              $("exitResult").textContent = message;
            }
            fetch("session").then((r) => r.json()).then((s) => {
              if (s.local) return;
              if (s.manager) { $("logout").hidden = false; return; }
              if (s.passwordSet) askLogin("Log in to use the buttons from this device.");
              else { mayPress = false; if (last) render(last); $("exitResult").textContent =
                "The buttons work only on the kiosk itself: no manager password is set (kioskd manager-password)."; }
            }).catch(() => {});
            $("login").addEventListener("submit", async (e) => {
              e.preventDefault();
              try {
                const r = await fetch("login", { method: "POST", headers: { "Content-Type": "application/json" },
                  body: JSON.stringify({ password: $("password").value }) });
                $("password").value = "";
                if (r.ok) {
                  mayPress = true; $("login").hidden = true; $("logout").hidden = false;
                  $("exitResult").textContent = "Logged in.";
                  if (last) render(last);
                } else $("exitResult").textContent = (await r.json()).error;
              } catch (e) { $("exitResult").textContent = "could not reach the kiosk"; }
            });
            // A tablet shared by the shift: log out ends the session here and on the kiosk.
            $("logout").addEventListener("click", async () => {
              try { await fetch("logout", { method: "POST" }); } catch (e) {}
              $("logout").hidden = true;
              askLogin("Logged out.");
            });
            $("exit").addEventListener("click", async () => {
              try {
                const r = await fetch("door/exit", { method: "POST" });
                if (r.status == 401) askLogin((await r.json()).error);
                else $("exitResult").textContent = r.ok ? "" : (await r.json()).error;
              } catch (e) { $("exitResult").textContent = "could not reach the kiosk"; }
            });
            """
    )
}
