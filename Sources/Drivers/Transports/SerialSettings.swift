import Glibc

/// Line settings of a serial printer: always 8 data bits, no parity, 1 stop bit (8N1).
public struct SerialSettings: Sendable, Equatable {
    public var baud: Int
    public var flowControl: PrinterProfile.FlowControl

    public init(baud: Int = 38400, flowControl: PrinterProfile.FlowControl = .rtsCts) {
        self.baud = baud
        self.flowControl = flowControl
    }

    public static let supportedBauds = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400]

    var speed: speed_t? {
        switch baud {
        case 1200: return speed_t(B1200)
        case 2400: return speed_t(B2400)
        case 4800: return speed_t(B4800)
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115200: return speed_t(B115200)
        case 230400: return speed_t(B230400)
        default: return nil
        }
    }

    /// The raw 8N1 termios for these settings, based on `old` (so unrelated fields stay as they were).
    func termios(from old: termios) -> termios {
        var t = old
        cfmakeraw(&t)
        t.c_cflag &= ~(tcflag_t(CSIZE | PARENB | CSTOPB) | tcflag_t(CRTSCTS))
        t.c_cflag |= tcflag_t(CS8 | CLOCAL | CREAD)
        t.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
        switch flowControl {
        case .none: break
        case .rtsCts: t.c_cflag |= tcflag_t(CRTSCTS)
        // The kernel honours XOFF/XON from the printer on output and keeps them out of what we read.
        case .xonXoff: t.c_iflag |= tcflag_t(IXON | IXOFF)
        }
        // Non-blocking reads return what is there; poll(2) does the waiting.
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        if let speed {
            cfsetispeed(&t, speed)
            cfsetospeed(&t, speed)
        }
        return t
    }
}
