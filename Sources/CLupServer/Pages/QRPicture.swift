import QRSymbol

/// A ticket's QR as the page shows it: an inline SVG drawn by the server from libqrencode's symbol (no QR
/// library in the page), at error correction M as the printers use, with the standard 4-module quiet zone.
/// One path of horizontal runs keeps it small (a version 5 symbol is about 3 KB).
enum QRPicture {
    static let quietZone = 4

    /// The SVG for `text`, labelled for screen readers; nil if no symbol holds it.
    static func svg(_ text: String, label: String) -> String? {
        guard let matrix = try? QRMatrix.encode(Array(text.utf8), errorCorrection: .medium) else { return nil }
        let side = matrix.size + 2 * quietZone
        var path = ""
        for y in 0..<matrix.size {
            var x = 0
            while x < matrix.size {
                guard matrix[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < matrix.size, matrix[x, y] { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" role="img" \
            aria-label="\(HTML.escape(label))" shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" \
            fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}
