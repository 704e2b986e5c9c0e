import Glibc

/// The demo's keyboard: on a terminal, each key acts at once (canonical input and echo off, Ctrl-C still a
/// signal); the terminal's settings come back when the demo ends, and also when it crashes (a fatal signal
/// restores them before the process dies). Not on a terminal (a pipe, a test), keys come a line at a time.
enum Terminal {
    /// The settings found at start, restored on the way out (a fatal-signal handler reads them: no Swift state).
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var raw = false

    /// Turns single-key input on when standard input is a terminal; says whether it did.
    static func enterSingleKeyMode() -> Bool {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return false }
        var settings = saved
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings) == 0 else { return false }
        raw = true
        atexit { Terminal.restore() }
        for fatal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            signal(fatal) { number in
                Terminal.restore()
                signal(number, SIG_DFL)
                raise(number)
            }
        }
        return true
    }

    /// Puts the terminal back as it was (async-signal-safe: one tcsetattr).
    static func restore() {
        guard raw else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    /// The next key (a byte; Enter is "\n"), or nil at the end of input.
    static func readKey() -> Character? {
        var byte: UInt8 = 0
        while true {
            let n = read(STDIN_FILENO, &byte, 1)
            if n == 1 { return Character(UnicodeScalar(byte == 13 ? 10 : byte)) }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }
}
