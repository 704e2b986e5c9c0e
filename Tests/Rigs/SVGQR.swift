import Foundation

/// Reads a QR drawn as the console draws it (``QRPicture``: one path of horizontal strokes, `M x y.5h w` and
/// `m dx 0h w`, inside a viewBox of the symbol and its quiet zone) the way a scanner would: the picture is
/// rasterized to a bitmap (PBM, 6 pixels a module) and decoded by zbarimg, which knows nothing of how it was drawn.
enum SVGQR {
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    static func decode(_ svg: String, in directory: String) throws -> String {
        guard let box = svg.firstMatch(of: /viewBox="0 0 (\d+) (\d+)"/), let side = Int(box.1),
            let path = svg.firstMatch(of: /<path d="([^"]+)"/)?.1
        else { throw Unreadable(description: "no QR picture in \(svg.prefix(200))") }
        var dark = Array(repeating: Array(repeating: false, count: side), count: side)
        var x = 0
        var y = 0
        for command in path.matches(of: /([Mmh])(-?\d+)(?: (\d+)\.5)?/) {
            let value = Int(command.2) ?? 0
            switch command.1 {
            case "M":
                x = value
                y = Int(command.3 ?? "0") ?? 0
            case "m": x += value
            default:
                for column in x..<min(x + value, side) where y < side { dark[y][column] = true }
                x += value
            }
        }
        let scale = 6
        var pbm = "P1\n\(side * scale) \(side * scale)\n"
        for row in dark {
            let line = row.flatMap { Array(repeating: $0 ? "1" : "0", count: scale) }.joined(separator: " ")
            pbm += String(repeating: line + "\n", count: scale)
        }
        let file = "\(directory)/qr-\(UUID().uuidString.prefix(8)).pbm"
        try pbm.write(toFile: file, atomically: true, encoding: .ascii)
        defer { try? FileManager.default.removeItem(atPath: file) }
        guard let text = try HIL.decodeQR(png: file).first else {
            throw Unreadable(description: "zbarimg read no QR in the picture")
        }
        return text
    }
}
