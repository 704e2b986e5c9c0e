import QRSymbol

/// A ticket's QR as the page shows it: an inline SVG drawn by the server from libqrencode's symbol (no QR
/// library in the page), at error correction M as the printers use, with the standard 4-module quiet zone.
/// One path of horizontal strokes keeps it small (a ticket's version 8 symbol is about 4 KB).
enum QRPicture {
    static let quietZone = 4

    /// The SVG for `text`, labelled for screen readers; nil if no symbol holds it.
    static func svg(_ text: String, label: String) -> String? {
        guard let matrix = try? QRMatrix.encode(Array(text.utf8), errorCorrection: .medium) else { return nil }
        let side = matrix.size + 2 * quietZone
        // Each row's dark runs as one stroke 1 module thick: "M x y.5 h w", then "m gap 0 h w" for the next
        // run in that row.
        var path = ""
        for y in 0..<matrix.size {
            var x = 0
            var end: Int?
            while x < matrix.size {
                guard matrix[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < matrix.size, matrix[x, y] { x += 1 }
                if let end {
                    path += "m\(start - end) 0h\(x - start)"
                } else {
                    path += "M\(start + quietZone) \(y + quietZone).5h\(x - start)"
                }
                end = x
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" role="img" \
            aria-label="\(HTML.escape(label))" shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" \
            fill="#fff"/><path d="\(path)" stroke="#000"/></svg>
            """
    }
}
