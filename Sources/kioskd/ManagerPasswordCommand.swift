import ArgumentParser
import Foundation
import Glibc
import KioskStation
import ServiceSupport

/// `kioskd manager-password`: the line that sets the manager page's password, to paste under `[http]`.
///
/// Asks for the password twice without echo on a terminal, or reads one line from a pipe; prints only the
/// scrypt hash (`manager_password = "scrypt:…"`), so the password itself is in no file and no shell history.
struct ManagerPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manager-password",
        abstract: "Print the [http] manager_password line for a password typed here (or piped in).",
        discussion: """
            Without it, the manager page's buttons work only on the box itself. With it, a manager's tablet
            logs in on the page once a shift. Put the printed line under [http] in kioskd.toml and restart kioskd.
            """
    )

    static let minimumBytes = 8

    func run() throws {
        let password: String
        if isatty(STDIN_FILENO) == 1 {
            let first = try Self.readHidden("Manager password: ")
            guard try Self.readHidden("Again: ") == first else { throw ValidationError("the two passwords differ") }
            password = first
        } else {
            password = readLine(strippingNewline: true) ?? ""
        }
        let longest = StationHTTP.maxPasswordBytes
        guard password.utf8.count >= Self.minimumBytes, password.utf8.count <= longest else {
            throw ValidationError("a manager password has \(Self.minimumBytes) to \(longest) bytes")
        }
        let hash = try PasswordHash(password: password)
        FileHandle.standardError.write(Data("# under [http] in kioskd.toml, then restart kioskd:\n".utf8))
        print("manager_password = \"\(hash.text)\"")
    }

    /// One line from the terminal with its echo off.
    static func readHidden(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw ValidationError("cannot read the terminal") }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
