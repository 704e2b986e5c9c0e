import Mustache

/// The pages' templates (mustache: every `{{value}}` is HTML-escaped), compiled into the binary so a
/// package needs no template files. One style sheet for all pages: system fonts, no external resources,
/// contrast at least 4.5:1 (WCAG 2.1 AA).
enum PageTemplates {
    static let style = """
        body{margin:0;font:18px/1.45 system-ui,sans-serif;color:#1a1a1a;background:#fff}
        main{max-width:34rem;margin:0 auto;padding:1rem}
        h1{font-size:1.2rem;margin:.2rem 0 1rem}
        .code{font-size:3.5rem;font-weight:700;letter-spacing:.05em;margin:.2rem 0}
        .stage{display:inline-block;padding:.35rem .7rem;border-radius:.4rem;font-weight:600;background:#e8e8e8}
        .stage-called{background:#0b6b2e;color:#fff}.stage-admitted{background:#1f4e99;color:#fff}
        .stage-expired,.stage-cancelled{background:#8a1c1c;color:#fff}
        .muted{color:#4a4a4a;font-size:.9rem}
        nav a{color:#1f4e99;margin-right:.8rem}
        """

    /// What every page starts with: its language, title (`pageTitle`) and the style sheet.
    static let head = try! MustacheTemplate(
        string: """
            <!doctype html>
            <html lang="{{lang}}">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <title>{{pageTitle}}</title>
            <style>{{{style}}}</style>
            </head>
            """
    )

    static let ticket = try! MustacheTemplate(
        string: """
            {{> head}}
            <body>
            <main>
            <h1>{{store}}</h1>
            <p class="muted">{{title}}</p>
            <p class="code" id="code">{{code}}</p>
            <p><span id="stage" class="stage stage-{{stage}}" role="status" aria-live="polite">{{stageText}}</span></p>
            <p id="ahead" aria-live="polite">{{aheadText}}</p>
            <p id="wait">{{waitLabel}}: <span id="minutes">{{waitText}}</span></p>
            <p class="muted" id="live">{{live}}</p>
            <noscript><p class="muted">{{reload}}</p></noscript>
            <nav aria-label="{{languageLabel}}">{{#languages}}<a href="?lang={{code}}" lang="{{code}}" hreflang="{{code}}">{{name}}</a>{{/languages}}</nav>
            </main>
            <script id="strings" type="application/json">{{{strings}}}</script>
            <script>
            (function(){
              var s=JSON.parse(document.getElementById('strings').textContent);
              var stage=document.getElementById('stage'),ahead=document.getElementById('ahead'),minutes=document.getElementById('minutes');
              function n(t,v){return t.replace('{n}',v)}
              function show(t){
                stage.textContent=s['stage.'+t.stage]||t.stage;
                stage.className='stage stage-'+t.stage;
                if(typeof t.peopleAhead==='number'){ahead.textContent=t.peopleAhead===0?s.ahead_none:(t.peopleAhead===1?s.ahead_one:n(s.ahead_many,t.peopleAhead))}else{ahead.textContent=''}
                if(typeof t.estimatedWaitSeconds==='number'){minutes.textContent=n(s.minutes,Math.ceil(t.estimatedWaitSeconds/60))}
              }
              if(!window.EventSource)return;
              var events=new EventSource('/v1/tickets/{{id}}/events');
              events.addEventListener('status',function(e){show(JSON.parse(e.data))});
            })();
            </script>
            </body>
            </html>
            """
    )

    static let invalid = try! MustacheTemplate(
        string: """
            {{> head}}
            <body>
            <main>
            <h1>{{title}}</h1>
            <p role="alert">{{message}}</p>
            </main>
            </body>
            </html>
            """
    )

    /// The pages, with the parts they share.
    static let library = MustacheLibrary(templates: ["head": head, "ticket": ticket, "invalid": invalid])

    /// `name` rendered with `values`, the shared style sheet added.
    static func render(_ name: String, _ values: [String: Any]) -> String {
        library.render(values.merging(["style": style]) { own, _ in own }, withTemplate: name) ?? ""
    }
}
