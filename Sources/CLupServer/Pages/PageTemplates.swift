import Mustache

/// The shopper pages' templates (mustache: every `{{value}}` is HTML-escaped), compiled into the binary so a
/// package needs no template files. One style sheet for all pages: system fonts, no external resources,
/// contrast at least 4.5:1 (WCAG 2.1 AA), large touch targets.
enum PageTemplates {
    static let style = """
        body{margin:0;font:18px/1.45 system-ui,sans-serif;color:#1a1a1a;background:#fff}
        main{max-width:34rem;margin:0 auto;padding:1rem}
        h1{font-size:1.3rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.4rem 0 .5rem}h3{font-size:1rem;margin:0}
        a{color:#1f4e99}
        .code{font-size:3.5rem;font-weight:700;letter-spacing:.05em;margin:.2rem 0}
        .stage{display:inline-block;padding:.35rem .7rem;border-radius:.4rem;font-weight:600;background:#e8e8e8}
        .stage-called{background:#0b6b2e;color:#fff}.stage-admitted{background:#1f4e99;color:#fff}
        .stage-expired,.stage-cancelled{background:#8a1c1c;color:#fff}
        .muted{color:#4a4a4a;font-size:.9rem}
        .notice{background:#fff4c2;border-left:.3rem solid #8a5a00;padding:.6rem .8rem;font-weight:600}
        .leave{font-weight:700;font-size:1.15rem}.leave:empty{display:none}.modes button{margin:.2rem .3rem .2rem 0}
        .error{background:#fde8e8;border-left:.3rem solid #8a1c1c;padding:.6rem .8rem}
        button{font:inherit;padding:.55rem 1rem;border-radius:.4rem;border:0;background:#1f4e99;color:#fff;cursor:pointer}
        button.quiet{background:#e8e8e8;color:#1a1a1a}button:disabled{background:#6b6b6b}
        button:focus-visible,a:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #8a5a00;outline-offset:2px}
        input,select{font:inherit;padding:.4rem;border:1px solid #6b6b6b;border-radius:.3rem;max-width:100%}
        label{display:block;margin:.6rem 0 .2rem}
        ul.list{list-style:none;padding:0}ul.list>li{border-top:1px solid #d0d0d0;padding:.8rem 0}
        .qr{width:100%;max-width:18rem;display:block;margin:1rem 0}
        nav.languages{margin-top:2rem}nav.languages a{margin-right:.8rem}
        [hidden]{display:none!important}
        """

    /// What every page starts with: its language, title (`pageTitle`) and the style sheet.
    static let head = """
        <!doctype html>
        <html lang="{{lang}}">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1">
        <title>{{pageTitle}}</title>
        <style>{{{style}}}</style>
        </head>
        """

    /// What every page ends with: the language switch, the script's words and the script.
    static let foot = """
        <nav class="languages" aria-label="{{languageLabel}}">{{#languages}}<a href="?lang={{code}}" lang="{{code}}" hreflang="{{code}}">{{name}}</a>{{/languages}}</nav>
        </main>
        <script id="strings" type="application/json">{{{scriptStrings}}}</script>
        <script>{{{script}}}</script>
        </body>
        </html>
        """

    /// The body element with what the script needs to know about the page.
    static let body = """
        <body data-segment="{{segment}}" data-status-url="{{statusURL}}" data-lang-query="{{languageQuery}}"\
        {{#storeID}} data-store="{{storeID}}"{{/storeID}}{{#ticketID}} data-ticket="{{ticketID}}" data-stage="{{stage}}"{{/ticketID}}\
        {{#opensText}} data-opens="{{opensText}}"{{/opensText}}>
        <main{{#wide}} class="wide"{{/wide}}>
        """

    static let ticket = """
        {{> head}}
        {{> body}}
        <p class="muted"><a href="/{{languageQuery}}">{{home}}</a></p>
        <h1>{{store}}</h1>
        <p class="muted">{{title}}</p>
        <p class="code" id="code">{{code}}</p>
        <p><span id="stage" class="stage stage-{{stage}}" role="status" aria-live="polite">{{stageText}}</span></p>
        <p id="notice" class="notice" role="alert"{{^noticeText}} hidden{{/noticeText}}>{{noticeText}}</p>
        {{#visitText}}<p id="visit">{{visitLabel}}: {{visitText}}</p>{{/visitText}}
        <div id="qr" class="qr"{{^qr}} hidden{{/qr}}>{{{qr}}}</div>
        <div id="progress" role="status" aria-live="polite" aria-atomic="true">
        <p id="ahead">{{aheadText}}</p>
        <p id="wait"{{^waitText}} hidden{{/waitText}}>{{waitLabel}}: <span id="minutes">{{waitText}}</span></p>
        <p id="range-note" class="muted"{{^rangeNote}} hidden{{/rangeNote}}>{{rangeNoteText}}</p>
        </div>
        <p id="error" class="error" role="alert" hidden></p>
        {{#journeyAsked}}<section id="journey-box" aria-labelledby="journey-title" data-lat="{{storeLatitude}}" data-lon="{{storeLongitude}}">
        <h2 id="journey-title">{{journeyTitle}}</h2>
        <p id="leave" class="leave" role="status" aria-live="polite" aria-atomic="true">{{leaveText}}</p>
        {{#journeyError}}<p id="journey-error" class="error" role="alert">{{journeyError}}</p>{{/journeyError}}
        <form id="journey" method="get">
        <label for="journey-minutes">{{journeyLabel}}</label>
        <input id="journey-minutes" name="journeyMinutes" type="number" min="1" max="240" step="1" inputmode="numeric" value="{{journeyValue}}" required>
        {{#languageCode}}<input type="hidden" name="lang" value="{{languageCode}}">{{/languageCode}}
        <button type="submit">{{journeySubmit}}</button>
        </form>
        <div id="journey-modes" role="group" aria-labelledby="journey-modes-label" hidden><p id="journey-modes-label">{{journeyModes}}</p>
        <p class="modes"><button type="button" class="quiet" data-mode="foot">{{journeyFoot}}</button> <button type="button" class="quiet" data-mode="bike">{{journeyBike}}</button> <button type="button" class="quiet" data-mode="car">{{journeyCar}}</button></p></div>
        <p class="muted">{{journeyPrivate}}</p>
        </section>{{/journeyAsked}}
        <button id="notify" type="button" class="quiet" hidden>{{notify}}</button>
        <div id="cancel-box" hidden>
        <p><button id="cancel" type="button" class="quiet">{{cancel}}</button></p>
        <div id="confirm" role="group" aria-labelledby="confirm-text" hidden><p id="confirm-text">{{cancelConfirm}}</p>
        <button id="cancel-yes" type="button">{{cancelYes}}</button> <button id="cancel-no" type="button" class="quiet">{{cancelNo}}</button></div>
        </div>
        <p class="muted" id="live">{{live}}</p>
        <noscript><p class="muted">{{reload}}</p></noscript>
        {{> foot}}
        """

    static let start = """
        {{> head}}
        {{> body}}
        <h1>{{app}}</h1>
        <section id="mine-section" aria-labelledby="mine-title" hidden><h2 id="mine-title">{{mineTitle}}</h2><ul id="mine" class="list"></ul></section>
        <h2>{{find}}</h2>
        <form method="get" action="/" role="search">
        <label for="q">{{searchLabel}}</label>
        <input id="q" name="q" type="search" value="{{query}}" maxlength="80" required>
        {{#languageCode}}<input type="hidden" name="lang" value="{{languageCode}}">{{/languageCode}}
        <button type="submit">{{search}}</button>
        </form>
        <p><button id="locate" type="button" class="quiet" hidden>{{nearMe}}</button></p>
        <p id="error" class="error" role="alert"{{^error}} hidden{{/error}}>{{error}}</p>
        {{#searched}}
        <h2>{{results}}</h2>
        <ul class="list" id="stores">
        {{#stores}}<li><h3>{{name}}</h3><p class="muted">{{address}}{{#distance}} · {{distance}}{{/distance}}</p>
        {{#closedText}}<p class="notice">{{closedText}}{{#ticketsFromText}} {{ticketsFromText}}{{/ticketsFromText}}</p>{{/closedText}}
        <p>{{waiting}} · {{waitNow}}</p>
        {{#canTake}}<button type="button" data-take="{{id}}" data-name="{{name}}">{{take}}</button> {{/canTake}}<a href="/stores/{{id}}/book{{languageQuery}}">{{book}}</a></li>
        {{/stores}}
        </ul>
        {{^stores}}<p id="none">{{noStores}}</p>{{/stores}}
        {{/searched}}
        <noscript><p class="muted">{{needsScript}}</p></noscript>
        {{> foot}}
        """

    static let book = """
        {{> head}}
        {{> body}}
        <p class="muted"><a href="/{{languageQuery}}">{{back}}</a></p>
        <h1>{{title}} — {{store}}</h1>
        <form method="get">
        <label for="date">{{dayLabel}}</label>
        <input id="date" name="date" type="date" value="{{date}}" min="{{firstDate}}" max="{{lastDate}}" required>
        {{#languageCode}}<input type="hidden" name="lang" value="{{languageCode}}">{{/languageCode}}
        <button type="submit" class="quiet">{{showSlots}}</button>
        </form>
        <label for="stay">{{stay}}</label>
        <select id="stay"><option value="">{{stayUnknown}}</option>{{#stays}}<option value="{{.}}">{{.}} min</option>{{/stays}}</select>
        <p id="error" class="error" role="alert"{{^error}} hidden{{/error}}>{{error}}</p>
        <h2>{{slotsTitle}}</h2>
        <ul class="list" id="slots">
        {{#slots}}<li>{{#free}}<button type="button" data-slot="{{start}}">{{time}}</button> {{places}}{{/free}}\
        {{^free}}<span>{{time}} — {{full}}</span>{{#nearest}} · {{nearestLabel}} {{#choices}}<button type="button" class="quiet" data-slot="{{start}}">{{time}}</button> {{/choices}}{{/nearest}}{{/free}}</li>
        {{/slots}}
        </ul>
        {{^slots}}<p id="none">{{noSlots}}</p>{{/slots}}
        <noscript><p class="muted">{{needsScript}}</p></noscript>
        {{> foot}}
        """

    /// A page that only says something went wrong, and how to go on.
    static let message = """
        {{> head}}
        {{> body}}
        <h1>{{title}}</h1>
        <p role="alert">{{message}}</p>
        <p><a href="/{{languageQuery}}">{{home}}</a></p>
        {{> foot}}
        """

    /// The pages, with the parts they share.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        let all = [
            "head": head, "foot": foot, "body": body, "ticket": ticket, "start": start, "book": book,
            "message": message,
        ].merging(ConsoleTemplates.all) { own, _ in own }
        for (name, text) in all { try! library.register(text, named: name) }
        return library
    }()

    /// `name` rendered with `values`, plus what every page has: the style sheet, the language switch, the
    /// script and its words.
    static func render(
        _ name: String,
        _ values: [String: Any],
        _ strings: PageStrings,
        statusURL: String,
        segment: String
    )
        -> String
    {
        var common: [String: Any] = [
            "style": style + (name.hasPrefix("console") ? ConsoleTemplates.style : ""), "script": PageScript.text,
            "scriptStrings": strings.scriptJSON,
            "lang": strings.language, "languageLabel": strings["language"],
            "languages": [["code": "en", "name": "English"], ["code": "it", "name": "Italiano"]],
            "languageQuery": strings.languageQuery,
            "home": strings["home"], "statusURL": statusURL, "segment": segment,
        ]
        if !strings.languageQuery.isEmpty { common["languageCode"] = strings.language }
        return library.render(values.merging(common) { own, _ in own }, withTemplate: name) ?? ""
    }
}
