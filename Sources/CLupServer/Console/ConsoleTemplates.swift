/// The console's templates, in the pages' template library (same head, style and language switch). Words
/// come as `w.<key>` (``ConsoleCatalogue`` without its `console.` prefix); every form carries `csrf`.
enum ConsoleTemplates {
    static let style = """
        main.wide{max-width:64rem}
        .console-head{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem}
        .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1.5rem}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #d0d0d0}
        .big{font-size:2rem;font-weight:700}.codes{display:flex;flex-wrap:wrap;gap:.4rem;list-style:none;padding:0}
        .codes li{background:#e8e8e8;border-radius:.3rem;padding:.1rem .5rem;font-weight:600}
        .codes.called li{background:#0b6b2e;color:#fff}
        .warn{color:#8a1c1c;font-weight:600}pre{background:#f2f2f2;padding:.6rem;overflow-x:auto;font-size:.85rem}
        .chart{width:100%;height:auto;max-width:40rem}.chart text{font-size:10px;fill:#1a1a1a}
        dl.figures{display:grid;grid-template-columns:auto auto;gap:.2rem 1rem}dl.figures dd{margin:0;font-weight:600}
        .hours input[type=time]{width:7.5rem}.offer-qr{max-width:20rem}label.inline{display:inline}
        """

    static let login = """
        {{> head}}
        {{> body}}
        <h1>{{w.title}}</h1>
        {{#notice}}<p id="notice" class="notice" role="alert">{{notice}}</p>{{/notice}}
        <form method="post" action="/console/login">
        <input type="hidden" name="next" value="{{next}}">
        <label for="username">{{w.username}}</label>
        <input id="username" name="username" autocomplete="username" required maxlength="64">
        <label for="password">{{w.password}}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
        <p><button type="submit" id="login">{{w.login}}</button></p>
        </form>
        <details id="admin"><summary>{{w.admin_login}}</summary>
        <form method="post" action="/console/login">
        <input type="hidden" name="next" value="{{next}}">
        <label for="token">{{w.admin_token}}</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required maxlength="256">
        <p><button type="submit" id="admin-login">{{w.login}}</button></p>
        </form></details>
        {{> foot}}
        """

    /// The head of every console page after login: who, and the logout button.
    static let bar = """
        <div class="console-head"><p class="muted">{{signedInAs}}</p>
        <form method="post" action="/console/logout"><input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="quiet" id="logout">{{w.logout}}</button></form></div>
        {{#notice}}<p id="notice" class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#problem}}<p id="problem" class="error" role="alert">{{problem}}</p>{{/problem}}
        """

    static let store = """
        {{> head}}
        {{> body}}
        {{> consoleBar}}
        <h1>{{storeName}}</h1>
        <div class="grid">
        <section aria-labelledby="live-title"><h2 id="live-title">{{w.live}}</h2>
        <p id="opening" class="notice" role="status"{{^opening}} hidden{{/opening}}>{{opening}}</p>
        <p>{{w.inside}} <span class="big" id="inside">{{inside}}</span> {{w.of}} <span class="big" id="capacity">{{capacity}}</span></p>
        {{#correctedBy}}<p id="corrected-by" class="muted">{{correctedBy}}</p>{{/correctedBy}}
        <details id="count-controls"><summary>{{w.count}}</summary>
        <form method="post" action="/console/stores/{{storeID}}/count" id="count-form">
        <input type="hidden" name="csrf" value="{{csrf}}"><p class="muted">{{w.count_hint}}</p>
        <label for="count-inside">{{w.inside}}</label>
        <input id="count-inside" name="inside" type="number" min="0" max="{{countMax}}" value="{{inside}}" required>
        <button type="submit" id="count-button">{{w.count_button}}</button>
        </form>
        <form method="post" action="/console/stores/{{storeID}}/let-in" id="let-in-form">
        <input type="hidden" name="csrf" value="{{csrf}}"><h3>{{w.let_in}}</h3>
        <label for="let-in-people">{{w.people}}</label>
        <input id="let-in-people" name="people" type="number" min="1" max="{{letInMax}}" value="1" required>
        <label for="let-in-reason">{{w.reason}}</label>
        <input id="let-in-reason" name="reason" maxlength="120" required>
        <button type="submit" id="let-in-button">{{w.let_in_button}}</button>
        </form></details>
        <p id="paused" class="notice" role="status"{{^paused}} hidden{{/paused}}>{{paused}}</p>
        <form method="post" action="/console/stores/{{storeID}}/resume" id="resume-form"{{^paused}} hidden{{/paused}}>
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="resume-button">{{w.resume_button}}</button>
        </form>
        <details id="pause-controls"{{#paused}} hidden{{/paused}}><summary>{{w.pause}}</summary>
        <form method="post" action="/console/stores/{{storeID}}/pause" id="pause-form">
        <input type="hidden" name="csrf" value="{{csrf}}"><p class="muted">{{w.pause_hint}}</p>
        <label for="pause-reason">{{w.pause_reason}}</label>
        <input id="pause-reason" name="reason" maxlength="120" required>
        <label for="pause-minutes">{{w.pause_minutes}}</label>
        <input id="pause-minutes" name="minutes" type="number" min="1" max="{{pauseMinutesMax}}">
        <button type="submit" id="pause-button">{{w.pause_button}}</button>
        </form></details>
        <h3>{{w.called}}</h3><ul class="codes called" id="called" aria-live="polite">{{#called}}<li>{{.}}</li>{{/called}}</ul>
        <h3>{{w.waiting}} (<span id="waiting-count">{{waitingCount}}</span>)</h3><ul class="codes" id="waiting">{{#waiting}}<li>{{.}}</li>{{/waiting}}</ul>
        <h3>{{w.in_printer}}</h3><ul class="codes" id="printer">{{#printer}}<li>{{.}}</li>{{/printer}}</ul>
        <p id="live-ended" class="error" role="alert" hidden></p>
        </section>
        <section aria-labelledby="day-title"><h2 id="day-title">{{w.today}} {{report.date}}</h2>
        <form method="get"><label for="date">{{w.day}}</label><input id="date" name="date" type="date" value="{{report.date}}" max="{{today}}"> <button type="submit" class="quiet">{{w.show}}</button></form>
        {{{chart}}}
        <dl class="figures" id="figures">
        <dt>{{w.paper}}</dt><dd>{{report.paper}}</dd><dt>{{w.app}}</dt><dd>{{report.app}}</dd>
        <dt>{{w.bookings}}</dt><dd>{{report.bookings}}</dd><dt>{{w.admitted}}</dt><dd id="admitted">{{report.admitted}}</dd>
        <dt>{{w.no_shows}}</dt><dd>{{report.noShows}}</dd><dt>{{w.cancelled}}</dt><dd>{{report.cancelled}}</dd>
        <dt>{{w.refused}}</dt><dd>{{report.refusedScans}}</dd><dt>{{w.peak}}</dt><dd>{{report.peakInside}}</dd>
        <dt>{{w.corrections}}</dt><dd id="corrections">{{report.countCorrections}}</dd><dt>{{w.people_let_in}}</dt><dd id="people-let-in">{{report.peopleLetIn}}</dd>
        <dt>{{w.pauses}}</dt><dd id="pauses">{{report.pauses}}</dd>
        <dt>{{w.mean_wait}}</dt><dd id="mean-wait">{{meanWait}}</dd><dt>{{w.mean_estimate}}</dt><dd id="mean-estimate">{{meanEstimate}}</dd>
        {{#accuracy}}<dt>{{w.accuracy_median}}</dt><dd id="accuracy-median">{{median}}</dd><dt>{{w.accuracy_p90}}</dt><dd id="accuracy-p90">{{p90}}</dd>
        <dt>{{w.within3}}</dt><dd id="within3">{{within3}}</dd><dt>{{w.in_range}}</dt><dd id="in-range">{{inRange}}</dd>{{#worstHour}}<dt>{{w.worst_hour}}</dt><dd id="worst-hour">{{worstHour}}</dd>{{/worstHour}}{{/accuracy}}
        </dl>
        {{#correctionsOften}}<p id="corrections-often" class="warn" role="status">{{correctionsOften}}</p>{{/correctionsOften}}
        {{{accuracyChart}}}
        <p><a id="csv" href="/console/stores/{{storeID}}/export?date={{report.date}}">{{w.csv}}</a></p>
        </section>
        </div>
        <section aria-labelledby="kiosks-title"><h2 id="kiosks-title">{{w.kiosks}}</h2>
        {{#enrolled}}<div id="enrolled" class="notice"><p>{{enrolledText}}</p><p>{{w.credential_once}}</p><pre id="credential">{{credential}}</pre>
        <p>{{w.snippet}}</p><pre id="snippet">{{snippet}}</pre></div>{{/enrolled}}
        <table id="kiosks"><thead><tr><th scope="col">{{w.kiosk}}</th><th scope="col">{{w.role}}</th><th scope="col">{{w.key}}</th><th scope="col">{{w.state}}</th><th scope="col">{{w.needs}}</th><th scope="col">{{w.last_contact}}</th><th scope="col"><span class="muted">{{w.revoke}}</span></th></tr></thead><tbody>
        {{#devices}}<tr id="kiosk-{{device}}"><td>{{device}}</td><td>{{role}}</td><td>{{key}}</td><td class="state">{{state}}</td><td class="needs{{#trouble}} warn{{/trouble}}">{{needs}}</td><td class="contact{{#silent}} warn{{/silent}}">{{contact}}</td>
        <td><details><summary>{{w.revoke}}</summary><form method="post" action="/console/stores/{{storeID}}/devices/{{device}}/revoke"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="revoke-{{device}}">{{revokeNow}}</button></form></details></td></tr>
        {{/devices}}</tbody></table>
        {{^devices}}<p>{{w.no_kiosks}}</p>{{/devices}}
        <form method="post" action="/console/stores/{{storeID}}/devices" id="enroll-form">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="device">{{w.kiosk_id}}</label>
        <input id="device" name="device" required maxlength="64" pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}">
        <label for="role">{{w.role}}</label>
        <select id="role" name="role"><option value="both">{{w.role_both}}</option><option value="printer">{{w.role_printer}}</option><option value="door">{{w.role_door}}</option></select>
        <button type="submit" id="enroll">{{w.enroll_button}}</button>
        </form>
        <p><a href="/console/pair" id="pair-link">{{w.pair_link}}</a></p>
        </section>
        <section aria-labelledby="settings-title"><h2 id="settings-title">{{w.settings}}</h2>
        <form method="post" action="/console/stores/{{storeID}}/settings" id="settings">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="capacity-input">{{w.capacity}}</label><input id="capacity-input" name="capacity" type="number" min="{{profile.capacityMin}}" max="{{profile.capacityMax}}" value="{{profile.capacity}}" required>
        <label for="average">{{w.average_visit}}</label><input id="average" name="averageVisitMinutes" type="number" min="1" max="600" value="{{profile.averageVisitMinutes}}" required>
        <label for="slot-minutes">{{w.slot_minutes}}</label><input id="slot-minutes" name="slotMinutes" type="number" min="5" max="240" value="{{profile.slotMinutes}}" required>
        <label for="slot-size">{{w.slot_size}}</label><input id="slot-size" name="slotSize" type="number" min="0" max="{{profile.capacityMax}}" value="{{profile.slotSize}}" required>
        <label for="tickets-before">{{w.tickets_before}}</label><input id="tickets-before" name="ticketsBeforeOpening" type="number" min="0" max="720" value="{{profile.ticketsBeforeOpening}}" aria-describedby="tickets-before-hint">
        <p class="muted" id="tickets-before-hint">{{w.tickets_before_hint}}</p>
        <label for="languages">{{w.languages}}</label><select id="languages" name="languages" aria-describedby="languages-hint">{{#languages}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/languages}}</select>
        <p class="muted" id="languages-hint">{{w.languages_hint}}</p>
        <label for="footer">{{w.footer}}</label><input id="footer" name="footer" maxlength="80" value="{{profile.footer}}" aria-describedby="footer-hint">
        <p class="muted" id="footer-hint">{{w.footer_hint}}</p>
        <label for="voice-volume">{{w.voice_volume}}</label><input id="voice-volume" name="voiceVolume" type="number" min="0" max="100" value="{{profile.voiceVolume}}" required>
        <label for="recall-minutes">{{w.recall_minutes}}</label><input id="recall-minutes" name="recallMinutes" type="number" min="0" max="60" value="{{profile.recallMinutes}}" required aria-describedby="recall-hint">
        <label for="recalls">{{w.recalls}}</label><input id="recalls" name="recalls" type="number" min="1" max="5" value="{{profile.recalls}}" required aria-describedby="recall-hint">
        <p class="muted" id="recall-hint">{{w.recall_hint}}</p>
        <p><input id="stop-past-closing" name="stopTicketsPastClosing" type="checkbox" value="on"{{#profile.stopTicketsPastClosing}} checked{{/profile.stopTicketsPastClosing}}> <label for="stop-past-closing" class="inline">{{w.stop_past_closing}}</label></p>
        <p><input id="large-print" name="largePrint" type="checkbox" value="on"{{#profile.largePrint}} checked{{/profile.largePrint}}> <label for="large-print" class="inline">{{w.large_print}}</label></p>
        <fieldset class="hours"><legend>{{w.hours}}</legend><table><thead><tr><th scope="col"></th><th scope="col">{{w.open}}</th><th scope="col">{{w.close}}</th><th scope="col">{{w.closed}}</th></tr></thead><tbody>
        {{#hours}}<tr><th scope="row">{{day}}</th>
        <td><input name="open{{index}}" type="time" value="{{open}}" aria-label="{{day}} {{w.open}}"></td>
        <td><input name="close{{index}}" type="time" value="{{close}}" aria-label="{{day}} {{w.close}}"></td>
        <td><input name="closed{{index}}" type="checkbox" value="on"{{#closed}} checked{{/closed}} aria-label="{{day}} {{w.closed}}"></td></tr>
        {{/hours}}</tbody></table></fieldset>
        <p><button type="submit" id="save">{{w.save}}</button></p>
        </form>
        </section>
        {{> foot}}
        """

    static let admin = """
        {{> head}}
        {{> body}}
        {{> consoleBar}}
        <h1>{{w.stores}}</h1>
        <p><a href="/console/fleet" id="fleet-link">{{w.fleet_link}}</a> · <a href="/console/pair" id="pair-link">{{w.pair_link}}</a></p>
        <table id="stores"><thead><tr><th scope="col">{{w.store_name}}</th><th scope="col">{{w.address}}</th><th scope="col">{{w.capacity}}</th></tr></thead><tbody>
        {{#stores}}<tr><td><a href="/console/stores/{{id}}">{{name}}</a></td><td>{{address}}</td><td>{{capacity}}</td></tr>{{/stores}}
        </tbody></table>
        <h2>{{w.register}}</h2>
        <form method="post" action="/console/stores" id="register">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="name">{{w.store_name}}</label><input id="name" name="name" required maxlength="200" value="{{form.name}}">
        <label for="address">{{w.address}}</label><input id="address" name="address" required maxlength="500" value="{{form.address}}">
        <label for="latitude">{{w.latitude}}</label><input id="latitude" name="latitude" type="number" step="any" min="-90" max="90" required value="{{form.latitude}}">
        <label for="longitude">{{w.longitude}}</label><input id="longitude" name="longitude" type="number" step="any" min="-180" max="180" required value="{{form.longitude}}">
        <label for="capacity">{{w.capacity}}</label><input id="capacity" name="capacity" type="number" min="1" max="100000" required value="{{form.capacity}}">
        <label for="open">{{w.open}}</label><input id="open" name="open" type="time" required value="{{form.open}}">
        <label for="close">{{w.close}}</label><input id="close" name="close" type="time" required value="{{form.close}}">
        <label for="zone">{{w.time_zone}}</label><input id="zone" name="timeZone" required maxlength="64" autocomplete="off" value="{{form.timeZone}}">
        <label for="manager">{{w.manager}}</label><input id="manager" name="manager" required maxlength="64" value="{{form.manager}}">
        <label for="manager-password">{{w.manager_password}}</label><input id="manager-password" name="password" type="password" required minlength="10" maxlength="1024" autocomplete="new-password">
        <p><button type="submit" id="register-button">{{w.register}}</button></p>
        </form>
        {{> foot}}
        """

    static let fleet = """
        {{> head}}
        {{> body}}
        {{> consoleBar}}
        <p><a href="/console/stores">{{w.stores}}</a></p>
        <h1>{{w.fleet}}</h1>
        <form method="get" action="/console/fleet" id="fleet-filter">
        <label for="version">{{w.version}}</label><select id="version" name="version"><option value="">{{w.every_version}}</option>{{#versions}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/versions}}</select>
        <label for="problem-filter">{{w.needs}}</label><select id="problem-filter" name="problem"><option value="">{{w.every_kiosk}}</option>{{#problems}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{words}}</option>{{/problems}}</select>
        <button type="submit" class="quiet" id="filter">{{w.show}}</button>
        </form>
        <p id="fleet-count">{{count}}</p>
        {{#any}}<table id="fleet"><thead><tr><th scope="col">{{w.store}}</th><th scope="col">{{w.kiosk}}</th><th scope="col">{{w.role}}</th><th scope="col">{{w.version}}</th><th scope="col">{{w.last_contact}}</th><th scope="col">{{w.clock}}</th><th scope="col">{{w.outbox}}</th><th scope="col">{{w.state}}</th><th scope="col">{{w.needs}}</th></tr></thead><tbody>
        {{/any}}{{#kiosks}}<tr id="fleet-{{store}}-{{device}}"><td><a href="/console/stores/{{store}}">{{storeName}}</a></td><td>{{device}}</td><td>{{role}}</td><td>{{version}} <span class="muted">{{protocol}}</span></td><td class="{{#silent}}warn{{/silent}}">{{contact}}</td><td class="{{#clockWrong}}warn{{/clockWrong}}">{{clock}}</td><td>{{outbox}}</td><td>{{state}}</td><td class="needs{{#trouble}} warn{{/trouble}}">{{needs}}</td></tr>
        {{/kiosks}}{{#any}}</tbody></table>{{/any}}
        {{^any}}<p>{{w.no_match}}</p>{{/any}}
        {{> foot}}
        """

    static let pair = """
        {{> head}}
        {{> body}}
        {{> consoleBar}}
        <p><a href="/console/stores">{{w.stores}}</a></p>
        <h1>{{w.pair_title}}</h1>
        {{#notice}}<p id="notice" class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#problem}}<p id="problem" class="error" role="alert">{{problem}}</p>{{/problem}}
        {{^pairing}}<form method="get" action="/console/pair" id="pair-code">
        <label for="code">{{w.pair_code}}</label>
        <input id="code" name="code" required maxlength="16" autocomplete="off" autocapitalize="characters" spellcheck="false" value="{{code}}" aria-describedby="code-hint">
        <p class="muted" id="code-hint">{{w.pair_code_hint}}</p>
        <p><button type="submit" id="find">{{w.pair_find}}</button></p>
        </form>
        {{#offer}}<section aria-labelledby="offer-title"><h2 id="offer-title">{{label}}</h2>
        <div id="offer-qr" class="offer-qr">{{{qr}}}</div><p>{{w.offer_scan}}</p></section>{{/offer}}
        <h2>{{w.offer_title}}</h2>
        <form method="post" action="/console/pair/offer" id="offer">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="offer-device">{{w.kiosk_id}}</label>
        <input id="offer-device" name="device" required maxlength="64" pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}">
        <label for="offer-store">{{w.store}}</label><select id="offer-store" name="store">{{#stores}}<option value="{{id}}">{{name}}</option>{{/stores}}</select>
        <label for="offer-role">{{w.role}}</label><select id="offer-role" name="role"><option value="door">{{w.role_door}}</option><option value="both">{{w.role_both}}</option></select>
        <p><button type="submit" id="offer-button">{{w.offer_button}}</button></p>
        </form>{{/pairing}}
        {{#pairing}}<p id="asks" class="big">{{code}}</p><p>{{asks}}</p>
        <form method="post" action="/console/pair" id="pair">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="code" value="{{code}}">
        <label for="store">{{w.store}}</label><select id="store" name="store">{{#stores}}<option value="{{id}}">{{name}}</option>{{/stores}}</select>
        <label for="role">{{w.role}}</label><select id="role" name="role">{{#roles}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/roles}}</select>
        <p class="muted">{{w.pair_replaces}}</p>
        <p><button type="submit" name="decision" value="approve" id="approve">{{w.pair_approve}}</button>
        <button type="submit" name="decision" value="deny" class="quiet" id="deny">{{w.pair_deny}}</button></p>
        </form>{{/pairing}}
        {{> foot}}
        """

    static let all = [
        "consoleLogin": login, "consoleBar": bar, "consoleStore": store, "consoleAdmin": admin, "consoleFleet": fleet,
        "consolePair": pair,
    ]
}
