/// The now-serving display at `/display`, for a screen in the store window: the codes called to the door,
/// how many wait, the estimated wait for a ticket taken now, and a warning when the printer cannot give
/// tickets (out of paper, a fault, unplugged). Big and legible from the street; follows `GET /events` and
/// says when it lost the kiosk. No external resources: it works on a kiosk with no internet.
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
              .label { font-size: min(2.4vw, 4vh); color: #9fb3c8; text-transform: uppercase; letter-spacing: 0.1em; }
              #called { font-size: min(11vw, 24vh); font-weight: 800; line-height: 1.05; display: flex;
                        flex-wrap: wrap; gap: 0 4vw; color: #7CFC9A; }
              #called.none { font-size: min(5vw, 9vh); color: #9fb3c8; font-weight: 400; }
              .figure { font-size: min(7vw, 13vh); font-weight: 800; line-height: 1.1; margin-bottom: 2vh; }
              .unit { font-size: min(3vw, 5vh); font-weight: 400; }
              #notice { font-size: 3.4vw; font-weight: 700; padding: 2vh 2vw; background: #b3261e; display: none; }
              #notice.shown { display: block; }
            """,
        body: """
            <header><span id="store">CLup</span><span id="link">connecting…</span></header>
            <div id="notice" role="alert"></div>
            <main>
              <section>
                <div class="label">Now serving</div>
                <div id="called" class="none" aria-live="polite">—</div>
              </section>
              <section>
                <div class="label">Waiting</div>
                <div class="figure"><span id="waiting">–</span> <span class="unit" id="people">people</span></div>
                <div class="label">Wait for a new ticket</div>
                <div class="figure"><span id="wait">–</span> <span class="unit">min</span></div>
                <div class="label">Inside</div>
                <div class="figure"><span id="inside">–</span><span class="unit"> / <span id="capacity">–</span></span></div>
              </section>
            </main>
            """,
        script: """
            function render(s) {
              $("store").textContent = s.store;
              const q = s.queue;
              const called = $("called");
              if (!q.open) {
                called.className = "none";
                called.textContent = q.notice || "Closed";
              } else if (q.called.length > 0) {
                called.className = "";
                called.replaceChildren(...q.called.slice(0, 6).map((c) => {
                  const span = document.createElement("span"); span.textContent = c; return span; }));
              } else {
                called.className = "none";
                // Nobody called: either people wait for a place, or the next ticket is called at once.
                called.textContent = q.waiting > 0 || q.inside >= q.capacity ? "please wait" : "take a ticket and go in";
              }
              $("waiting").textContent = q.waiting;
              $("people").textContent = q.waiting == 1 ? "person" : "people";
              $("wait").textContent = q.estimatedWaitLowMinutes < q.estimatedWaitHighMinutes && q.estimatedWaitMinutes > 0
                ? q.estimatedWaitLowMinutes + "–" + q.estimatedWaitHighMinutes : q.estimatedWaitMinutes;
              $("inside").textContent = q.inside;
              $("capacity").textContent = q.capacity;
              const p = s.printer;
              let notice = "";
              if (p && p.paper == "out") notice = "The ticket printer is out of paper — please ask a member of staff.";
              else if (p && (p.state == "fault" || p.state == "disconnected"))
                notice = "The ticket printer is not working — please ask a member of staff.";
              $("notice").textContent = notice;
              $("notice").className = notice ? "shown" : "";
            }
            """
    )
}
