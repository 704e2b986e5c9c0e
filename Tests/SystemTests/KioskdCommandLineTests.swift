import Foundation
import Glibc
import KioskCore
import Testing

@testable import Rigs

/// kioskd as an installer first meets it: `--version`; the shipped configuration, whose store id is the all-zeros
/// placeholder, refused with exit 78 (the unit does not restart it in a loop) and a sentence saying what to set;
/// a configuration file that is not there said in a sentence, not an error dump; a port another program holds
/// named with the setting that moves it, for kioskd and clup-server alike.
@Suite struct KioskdCommandLineTests {
    static var built: Bool { FileManager.default.isExecutableFile(atPath: HIL.kioskd) }

    @Test(.enabled(if: built, "kioskd is not built next to the tests"))
    func bothProgramsTellTheirVersion() throws {
        for program in [HIL.kioskd, HIL.clupServer] {
            let run = try HIL.run(program, ["--version"])
            #expect(run.status == 0, "\(program): \(run.error)")
            // Run from the build folder, not the package's /usr/bin: the source's series.
            #expect(run.output.hasPrefix("0.") && run.output.contains("built from source"), "\(run.output)")
        }
    }

    @Test(.enabled(if: built, "kioskd is not built next to the tests"))
    func theShippedPlaceholderStoreIsRefused() throws {
        let run = try HIL.run(HIL.kioskd, ["run", "--config", "\(HIL.packageRoot)/config/kioskd.toml"])
        #expect(run.status == 78)
        #expect(run.error.contains("[store] id is the shipped placeholder (all zeros)"), "\(run.error)")
    }

    @Test(.enabled(if: built, "kioskd is not built next to the tests"))
    func aMissingConfigurationIsASentence() throws {
        let run = try HIL.run(HIL.kioskd, ["run", "--config", "/nonexistent/kioskd.toml"])
        #expect(run.status == 78)
        #expect(run.error.contains("there is no configuration file here"), "\(run.error)")
        #expect(!run.error.contains("NSCocoaErrorDomain") && !run.error.contains("Error Domain"), "\(run.error)")
    }

    @Test(.enabled(if: built, "kioskd is not built next to the tests"))
    func aTakenPortIsNamedWithItsSetting() throws {
        let port = try HIL.freePort()
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0 && listen(holder, 1) == 0)
        let state = HIL.temporaryDirectory("taken-port")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = try KioskdConfig.write(
            state: state,
            printer: "tcp://127.0.0.1:9",
            store: StoreID(),
            device: "entrance",
            httpPort: port
        )
        let kioskd = try HIL.run(HIL.kioskd, ["run", "--config", config])
        #expect(kioskd.status == 1, "systemd may try again: the port may be freed")
        #expect(kioskd.error.contains("port \(port) on 127.0.0.1 is taken"), "\(kioskd.error)")
        #expect(kioskd.error.contains("[http] port in \(config)"), "\(kioskd.error)")
        #expect(!kioskd.error.contains("errno"), "\(kioskd.error)")
        let server = try HIL.run(
            HIL.clupServer,
            ["--port", "\(port)", "--database", "\(state)/clup.sqlite"],
            environment: ["CLUP_ADMIN_TOKEN": String(repeating: "a", count: 64)]
        )
        #expect(server.status == 1 && server.error.contains("--port ([server] port)"), "\(server.error)")
    }
}
