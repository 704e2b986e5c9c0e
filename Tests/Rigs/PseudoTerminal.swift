import DeviceEmulators
import Foundation
import Glibc

/// A pseudo-terminal, as a user's shell gives a program: the program reads keys from `userSide` (a tty), the
/// test types on the other side, and reads the terminal's settings as the program left them.
final class PseudoTerminal: Sendable {
    let keyboard: Int32
    let userSide: FileHandle

    init() throws {
        let (master, slave, _) = try openPseudoTerminal()
        keyboard = master
        userSide = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
    }

    deinit { close(keyboard) }

    /// Keys as a terminal sends them (Enter is a carriage return), with no newline added.
    func type(_ keys: String) {
        let bytes = Array(keys.utf8)
        _ = bytes.withUnsafeBytes { write(keyboard, $0.baseAddress, $0.count) }
    }

    /// Whether the terminal is in its usual line mode (canonical input and echo on).
    var inLineMode: Bool {
        var settings = termios()
        guard tcgetattr(userSide.fileDescriptor, &settings) == 0 else { return false }
        return settings.c_lflag & tcflag_t(ICANON) != 0 && settings.c_lflag & tcflag_t(ECHO) != 0
    }
}
