/// What the kiosk's live pages share: the HTML around their own style, body and `render(status)` script, and
/// the connection to `GET /events` that calls `render` with every status and says in `#link` whether the
/// page is live. No external resources: the pages work on a kiosk with no internet.
enum LivePage {
    static func html(title: String, style: String, body: String, script: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        \(body)
        <script>
        const $ = (id) => document.getElementById(id);
        \(script)
        function connect() {
          const source = new EventSource("events");
          source.addEventListener("status", (e) => {
            $("link").textContent = "live"; $("link").className = ""; render(JSON.parse(e.data)); });
          source.onerror = () => { $("link").textContent = "connection lost — retrying"; $("link").className = "down"; };
        }
        connect();
        </script>
        </body>
        </html>
        """
    }
}
