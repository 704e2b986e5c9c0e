import ArgumentParser
import Drivers
import Logging
import ServiceSupport

/// `kioskd`: the CLup store-entrance daemon. Subcommands cover setup and diagnostics as well as `run`.
@main
struct Kioskd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskd",
        abstract: "CLup kiosk daemon: ticket printer and door station at a store entrance.",
        version: Release.version,
        subcommands: [
            RunCommand.self, DevicesCommand.self, PrintTestCommand.self, KeysCommand.self,
            ManagerPasswordCommand.self, PairCommand.self,
        ]
    )
}
