/// The store manager's page at `/`: the door's last decision (big, green or red, with the reason and the
/// ticket code), occupancy against capacity, who is next, the printer's state, and an exit button. It
/// follows `GET /events` (server-sent events) and says when it lost the station. No external resources:
/// it works on a kiosk with no internet.
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
                <p id="counts"></p>
              </section>
              <section>
                <div>Waiting: <b id="waiting">–</b></div>
                <ol id="next"></ol>
                <p id="printer"></p>
                <p id="scanner"></p>
              </section>
            </main>
            """,
        script: """
            function render(s) {
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
                $("exit").disabled = !q.exitCounts;
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
              const p = s.printer;
              if (p) {
                let text = "Printer: " + p.state + (p.waitingTicket ? " · ticket " + p.waitingTicket + " waiting" : "");
                if (p.paper != "ok") text += " · paper " + p.paper.replace("_", " ");
                if (p.action) text += " — " + p.action;
                $("printer").textContent = text;
                $("printer").className = p.state == "ready" || p.state == "printing" ? "" : "warn";
              }
            }
            $("exit").addEventListener("click", async () => {
              try {
                const r = await fetch("door/exit", { method: "POST" });
                $("exitResult").textContent = r.ok ? "" : (await r.json()).error;
              } catch (e) { $("exitResult").textContent = "could not reach the kiosk"; }
            });
            """
    )
}
