/// Splits an ESC/POS byte stream into commands, across reads (a command may arrive in pieces).
///
/// Knows the length of every command of the Epson command set that common clients send (python-escpos,
/// vendor drivers), so an unrendered command is skipped whole instead of printing its parameters.
/// Lengths: Epson ESC/POS Command Reference; `GS ( x` and `FS ( x` carry their length in pL pH.
struct EscPosParser {
    enum Command: Equatable {
        case text([UInt8])
        case lineFeed
        case carriageReturn
        case tab
        case initialize
        /// `ESC ! n`
        case printMode(UInt8)
        case bold(Bool)
        case underline(UInt8)
        case align(UInt8)
        case codePage(UInt8)
        case font(UInt8)
        /// `GS ! n`
        case characterSize(UInt8)
        case lineSpacing(UInt8?)
        case feedLines(Int)
        case feedDots(Int)
        case cut(partial: Bool)
        /// `DLE EOT n` (and `DLE EOT 20` for Custom's full status).
        case realTimeStatus(UInt8)
        /// `DLE ENQ n`: real-time request (1 recover and restart, 2 recover and clear buffers).
        case realTimeRequest(UInt8)
        /// `GS a n`
        case automaticStatusBack(UInt8)
        /// `GS r n`
        case transmitStatus(UInt8)
        /// `GS ( k` for QR (cn = 49): function and its parameters after fn.
        case qr(fn: UInt8, parameters: [UInt8])
        /// `GS v 0 m xL xH yL yH d...`
        case rasterImage(mode: UInt8, widthBytes: Int, height: Int, data: [UInt8])
        /// `ESC * m nL nH d...`: column bit image, 8 or 24 dots high.
        case columnImage(mode: UInt8, width: Int, data: [UInt8])
        /// `GS L nL nH`
        case leftMargin(Int)
        /// A presenter command, whole: Citizen's `GS R n` (0 retracts at once, 1 sets the auto-retract timer),
        /// Custom's ejector commands `GS e n [m]`. The emulator acts on its profile's `retract`.
        case presenter([UInt8])
        /// A known command this emulator does not render.
        case ignored([UInt8])
        /// A control byte that starts nothing known.
        case unknown(UInt8)
    }

    private var buffer: [UInt8] = []
    private var start = 0

    /// Bytes received but not yet a whole command.
    var pendingCount: Int { buffer.count - start }

    mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    /// Appends bytes and returns every command now complete, with how many bytes each took.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [(command: Command, length: Int)] {
        buffer.append(contentsOf: bytes)
        var commands: [(command: Command, length: Int)] = []
        while start < buffer.count, let (command, length) = parse(at: start) {
            commands.append((command, length))
            start += length
        }
        if start > 4096 || start == buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return commands
    }

    /// The command at `i` and its length, or nil if more bytes are needed.
    private func parse(at i: Int) -> (Command, Int)? {
        let available = buffer.count - i
        func byte(_ k: Int) -> UInt8? { k < available ? buffer[i + k] : nil }
        func need(_ n: Int) -> Bool { available >= n }
        func word(_ k: Int) -> Int { Int(buffer[i + k]) | Int(buffer[i + k + 1]) << 8 }
        func skip(_ n: Int) -> (Command, Int)? { need(n) ? (.ignored(Array(buffer[i..<(i + n)])), n) : nil }

        let b0 = buffer[i]
        if b0 >= 0x20 {
            var j = i
            while j < buffer.count && buffer[j] >= 0x20 { j += 1 }
            return (.text(Array(buffer[i..<j])), j - i)
        }
        switch b0 {
        case 0x0A: return (.lineFeed, 1)
        case 0x0D: return (.carriageReturn, 1)
        case 0x09: return (.tab, 1)
        case 0x0C: return (.lineFeed, 1)
        case 0x10: return parseDLE(at: i)
        case 0x1B: return parseESC(at: i)
        case 0x1C:  // FS
            guard let b1 = byte(1) else { return nil }
            switch b1 {
            case 0x28:
                guard need(5) else { return nil }
                return skip(5 + word(3))
            case 0x70: return skip(4)
            case 0x21, 0x43, 0x2D, 0x53, 0x57: return skip(3)
            default: return skip(2)
            }
        case 0x1D: return parseGS(at: i)
        default: return (.unknown(b0), 1)
        }
    }

    private func parseDLE(at i: Int) -> (Command, Int)? {
        let available = buffer.count - i
        guard available >= 2 else { return nil }
        switch buffer[i + 1] {
        case 0x04:
            guard available >= 3 else { return nil }
            let n = buffer[i + 2]
            if n == 7 || n == 8 || n == 18 {
                guard available >= 4 else { return nil }
                return (.ignored(Array(buffer[i..<(i + 4)])), 4)
            }
            return (.realTimeStatus(n), 3)
        case 0x05:
            guard available >= 3 else { return nil }
            return (.realTimeRequest(buffer[i + 2]), 3)
        case 0x14:
            guard available >= 5 else { return nil }
            return (.ignored(Array(buffer[i..<(i + 5)])), 5)
        default:
            return (.unknown(0x10), 1)
        }
    }

    private func parseESC(at i: Int) -> (Command, Int)? {
        let available = buffer.count - i
        guard available >= 2 else { return nil }
        let c = buffer[i + 1]
        func arg() -> UInt8? { available >= 3 ? buffer[i + 2] : nil }
        switch c {
        case 0x40: return (.initialize, 2)
        case 0x32: return (.lineSpacing(nil), 2)
        case 0x69: return (.cut(partial: true), 2)  // ESC i (obsolete partial cut)
        case 0x6D: return (.cut(partial: true), 2)  // ESC m
        case 0x21: return arg().map { (.printMode($0), 3) }
        case 0x45, 0x47: return arg().map { (.bold($0 & 1 == 1), 3) }
        case 0x2D: return arg().map { (.underline(min($0 >= 48 ? $0 - 48 : $0, 2)), 3) }
        case 0x61: return arg().map { (.align($0 >= 48 ? $0 - 48 : $0), 3) }
        case 0x74: return arg().map { (.codePage($0), 3) }
        case 0x4D: return arg().map { (.font($0 >= 48 ? $0 - 48 : $0), 3) }
        case 0x33: return arg().map { (.lineSpacing($0), 3) }
        case 0x64: return arg().map { (.feedLines(Int($0)), 3) }
        case 0x4A: return arg().map { (.feedDots(Int($0)), 3) }
        case 0x2A:
            guard available >= 5 else { return nil }
            let m = buffer[i + 2]
            let n = Int(buffer[i + 3]) | Int(buffer[i + 4]) << 8
            let length = 5 + n * (m >= 32 ? 3 : 1)
            guard available >= length else { return nil }
            return (.columnImage(mode: m, width: n, data: Array(buffer[(i + 5)..<(i + length)])), length)
        case 0x44:  // ESC D n1...nk NUL: tab stops
            guard let end = buffer[(i + 2)...].firstIndex(of: 0) else { return nil }
            return (.ignored(Array(buffer[i...end])), end - i + 1)
        case 0x70:  // ESC p m t1 t2: drawer pulse
            return available >= 5 ? (.ignored(Array(buffer[i..<(i + 5)])), 5) : nil
        case 0x24, 0x5C:  // ESC $ / ESC \ nL nH: positions
            return available >= 4 ? (.ignored(Array(buffer[i..<(i + 4)])), 4) : nil
        case 0x63:  // ESC c x n: panel and sensor settings
            return available >= 4 ? (.ignored(Array(buffer[i..<(i + 4)])), 4) : nil
        case 0x28:  // ESC ( x pL pH ...
            guard available >= 5 else { return nil }
            let length = 5 + (Int(buffer[i + 3]) | Int(buffer[i + 4]) << 8)
            return available >= length ? (.ignored(Array(buffer[i..<length + i])), length) : nil
        case 0x20, 0x25, 0x3D, 0x3F, 0x52, 0x55, 0x56, 0x65, 0x72, 0x7B, 0x4B, 0x6C, 0x6E:
            return arg().map { (.ignored([0x1B, c, $0]), 3) }
        default:
            return (.ignored([0x1B, c]), 2)
        }
    }

    private func parseGS(at i: Int) -> (Command, Int)? {
        let available = buffer.count - i
        guard available >= 2 else { return nil }
        let c = buffer[i + 1]
        func arg() -> UInt8? { available >= 3 ? buffer[i + 2] : nil }
        func fixed(_ n: Int) -> (Command, Int)? { available >= n ? (.ignored(Array(buffer[i..<(i + n)])), n) : nil }
        switch c {
        case 0x21: return arg().map { (.characterSize($0), 3) }
        case 0x61: return arg().map { (.automaticStatusBack($0), 3) }
        case 0x72: return arg().map { (.transmitStatus($0 >= 48 ? $0 - 48 : $0), 3) }
        case 0x56:  // GS V m [n]
            guard let m = arg() else { return nil }
            let partial = m == 1 || m == 49 || m == 66 || m == 98 || m == 104
            if m >= 65 {
                return available >= 4 ? (.cut(partial: partial), 4) : nil
            }
            return (.cut(partial: partial), 3)
        case 0x28:  // GS ( x pL pH ...
            guard available >= 5 else { return nil }
            let p = Int(buffer[i + 3]) | Int(buffer[i + 4]) << 8
            guard available >= 5 + p else { return nil }
            if buffer[i + 2] == 0x6B, p >= 2, buffer[i + 5] == 49 {
                return (.qr(fn: buffer[i + 6], parameters: Array(buffer[(i + 7)..<(i + 5 + p)])), 5 + p)
            }
            return (.ignored(Array(buffer[i..<(i + 5 + p)])), 5 + p)
        case 0x38:  // GS 8 x p1 p2 p3 p4 ...: 4-byte length
            guard available >= 7 else { return nil }
            let p = Int(buffer[i + 3]) | Int(buffer[i + 4]) << 8 | Int(buffer[i + 5]) << 16 | Int(buffer[i + 6]) << 24
            guard p < 64 << 20 else { return (.unknown(0x1D), 1) }
            return fixed(7 + p)
        case 0x76:  // GS v 0 m xL xH yL yH
            guard available >= 8 else { return nil }
            let x = Int(buffer[i + 4]) | Int(buffer[i + 5]) << 8
            let y = Int(buffer[i + 6]) | Int(buffer[i + 7]) << 8
            guard available >= 8 + x * y else { return nil }
            return (
                .rasterImage(
                    mode: buffer[i + 3],
                    widthBytes: x,
                    height: y,
                    data: Array(buffer[(i + 8)..<(i + 8 + x * y)])
                ), 8 + x * y
            )
        case 0x52:  // GS R 0 (retract now) / GS R 1 n (auto-retract timer)
            guard let n = arg() else { return nil }
            let length = n == 1 || n == 0x31 ? 4 : 3
            return available >= length ? (.presenter(Array(buffer[i..<(i + length)])), length) : nil
        case 0x65:  // GS e n [m]: n = 3 presents the ticket m steps
            guard let n = arg() else { return nil }
            let length = n == 3 ? 4 : 3
            return available >= length ? (.presenter(Array(buffer[i..<(i + length)])), length) : nil
        case 0x4C:  // GS L nL nH
            guard available >= 4 else { return nil }
            return (.leftMargin(Int(buffer[i + 2]) | Int(buffer[i + 3]) << 8), 4)
        case 0x57, 0x50, 0x5C, 0x24: return fixed(4)
        case 0x6B:  // GS k m ...: barcode
            guard let m = arg() else { return nil }
            if m <= 6 {
                guard let end = buffer[(i + 3)...].firstIndex(of: 0) else { return nil }
                return (.ignored(Array(buffer[i...end])), end - i + 1)
            }
            guard available >= 4 else { return nil }
            return fixed(4 + Int(buffer[i + 3]))
        case 0x2A:  // GS * x y d1...d(x*y*8)
            guard available >= 4 else { return nil }
            return fixed(4 + Int(buffer[i + 2]) * Int(buffer[i + 3]) * 8)
        case 0x5E: return fixed(5)
        case 0x42, 0x62, 0x48, 0x68, 0x77, 0x66, 0x2F, 0x49, 0x54, 0x45, 0x7A: return fixed(3)
        default: return fixed(2)
        }
    }
}
