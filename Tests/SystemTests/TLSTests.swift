import CLupServer
import DeviceEmulators
import Foundation
import Glibc
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// clup-server serving HTTPS itself with a certificate from a private CA that the test makes with `openssl`,
/// and kiosks that sync with it: trusted through `[sync] ca_file`, refused (with a message that says what to
/// do) when the CA is not theirs; the server reads a renewed certificate on SIGHUP.
@Suite(.serialized) struct TLSTests {
    /// A printer kiosk and a door kiosk sync over TLS: the paper tickets reach the server, the door learns
    /// them and the key ring, admits one, and the admission reaches the server and the printer.
    @Test(.enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"))
    func printerAndDoorSyncOverTLS() async throws {
        let directory = HIL.temporaryDirectory("tls")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ca = try TestCA("chain", in: directory)
        let served = try ca.issue("server", serial: "C10F01")
        let server = try await ServerRig(
            tls: (.init(certificateChain: served.certificate, privateKey: served.key), ca.certificate)
        )
        #expect(server.url.hasPrefix("https://localhost:"))
        #expect(try TestCA.presentedSerial(port: server.port) == "C10F01")
        let storeID = try await server.registerStore()
        let printerCredential = try await server.enroll("tls-printer", store: storeID)
        let doorCredential = try await server.enroll("tls-door", store: storeID)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let printer = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(with: server, store: storeID, device: "tls-printer", credential: printerCredential, capacity: 2)
            $0.sync.caFile = ca.certificate
        }
        let door = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(with: server, store: storeID, device: "tls-door", credential: doorCredential, capacity: 2)
            $0.sync.caFile = ca.certificate
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            try await printer.requireTickets(1)
            await printer.customerTakes()
            let tickets = try await printer.requireTickets(2)
            #expect(await printer.wait(.seconds(10)) { server.queue(storeID)?.waiting.count == 1 } != nil)
            #expect(printer.kiosk.sync?.status.state == "online")
            let doorStation = try #require(door.kiosk.door)
            #expect(await door.wait(.seconds(10)) { doorStation.keyRing.count == 3 } != nil)
            #expect(await door.wait(.seconds(10)) { door.kiosk.queue.snapshot.waiting.count == 1 } != nil)
            let png = try #require(tickets[0].pngPath)
            let code = try #require(try HIL.decodeQR(png: png).first)
            #expect(try await door.scan(code, on: scanner) == "admit A001")
            #expect(await door.wait(.seconds(10)) { server.queue(storeID)?.inside == 1 } != nil)
            #expect(await printer.wait(.seconds(10)) { printer.kiosk.queue.snapshot.inside == 1 } != nil)
            #expect(door.kiosk.sync?.status.error == nil)
        } catch {
            await door.stop()
            await printer.stop()
            await server.stop()
            throw error
        }
        await door.stop()
        await printer.stop()
        await server.stop()
    }

    /// A kiosk that trusts another CA (a man in the middle's certificate looks like this) sends nothing: its
    /// status and log say the certificate is not signed by a CA it trusts and what to set, and the tickets it
    /// prints wait in its outbox.
    @Test func aServerSignedByAnotherCAIsRefused() async throws {
        let directory = HIL.temporaryDirectory("tls-wrong")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ca = try TestCA("chain", in: directory)
        let stranger = try TestCA("stranger", in: directory)
        let served = try ca.issue("server", serial: "C10F02")
        let server = try await ServerRig(
            tls: (.init(certificateChain: served.certificate, privateKey: served.key), ca.certificate)
        )
        let storeID = try await server.registerStore()
        let credential = try await server.enroll("misled", store: storeID)
        let registered = server.app.logs.store(storeID)?.lastSequence ?? 0  // the store's first dayStarted
        let kiosk = try StationRig(profile: "custom-vkp80iii") {
            $0.store.id = storeID
            $0.device.id = "misled"
            $0.sync.server = server.url
            $0.store.timeZone = .standardStore  // as installed: no day guessed in UTC before the first sync
            $0.store.hours = .standardStore
            $0.sync.credential = credential
            $0.sync.caFile = stranger.certificate
        }
        do {
            try await kiosk.requireTickets(1)
            let sync = try #require(kiosk.kiosk.sync)
            #expect(await kiosk.wait(.seconds(10)) { sync.status.state == "offline" } != nil)
            let error = sync.status.error ?? ""
            #expect(error.contains("not signed by a CA this kiosk trusts"), "\(error)")
            #expect(error.contains("[sync] ca_file"), "\(error)")
            #expect(try kiosk.kiosk.store.outboxCount() >= 1)
            #expect(server.app.logs.store(storeID)?.lastSequence ?? 0 == registered)
        } catch {
            await kiosk.stop()
            await server.stop()
            throw error
        }
        await kiosk.stop()
        await server.stop()
    }

    /// A key that is not the certificate's, or files that are not PEM, stop the server at start with what to
    /// fix — never a server that fails every handshake.
    @Test func unusableCertificateFilesAreNamedAtStart() throws {
        let directory = HIL.temporaryDirectory("tls-files")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ca = try TestCA("chain", in: directory)
        let one = try ca.issue("one", serial: "01")
        let two = try ca.issue("two", serial: "02")
        func failure(_ files: ServerCertificate.Files) -> String {
            do {
                _ = try ServerCertificate(files: files)
                return "accepted"
            } catch {
                return error.description
            }
        }
        let mismatch = failure(.init(certificateChain: one.certificate, privateKey: two.key))
        #expect(mismatch.contains("does not belong to the certificate"), "\(mismatch)")
        let missing = failure(.init(certificateChain: "\(directory)/none.pem", privateKey: one.key))
        #expect(missing.contains("cannot read a PEM certificate chain"), "\(missing)")
        let notAKey = failure(.init(certificateChain: one.certificate, privateKey: one.certificate))
        #expect(notAKey.contains("cannot read a PEM private key"), "\(notAKey)")
        #expect(
            try ServerCertificate(files: .init(certificateChain: one.certificate, privateKey: one.key)).summary
                .hasPrefix("serial 01, valid until ")
        )
    }

    /// clup-server as its own process reads a renewed certificate on SIGHUP (what `systemctl reload` and a
    /// certbot deploy hook send): the next handshake presents it; a broken renewal keeps the previous one
    /// and the server running.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: HIL.clupServer),
            "clup-server is not built next to the tests"
        )
    )
    func sighupReloadsTheCertificate() async throws {
        let directory = HIL.temporaryDirectory("tls-reload")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ca = try TestCA("chain", in: directory)
        let first = try ca.issue("first", serial: "A1A1")
        let renewed = try ca.issue("renewed", serial: "B2B2")
        let live = (certificate: "\(directory)/live.pem", key: "\(directory)/live.key")
        func install(_ pair: (certificate: String, key: String)) throws {
            for (from, to) in [(pair.certificate, live.certificate), (pair.key, live.key)] {
                try? FileManager.default.removeItem(atPath: to)
                try FileManager.default.copyItem(atPath: from, toPath: to)
            }
        }
        try install(first)
        let port = try HIL.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HIL.clupServer)
        process.arguments = [
            "--port", "\(port)", "--database", "\(directory)/clup.sqlite", "--log-level", "warning",
            "--tls-certificate", live.certificate, "--tls-key", live.key,
        ]
        process.environment = ["CLUP_ADMIN_TOKEN": ServerRig.adminToken]
        let log = Pipe()
        process.standardError = log
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        func presented(_ serial: String) async throws -> Bool {
            for _ in 0..<100 {
                if try TestCA.presentedSerial(port: port) == serial { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        #expect(try await presented("A1A1"))

        try install(renewed)
        kill(process.processIdentifier, SIGHUP)
        #expect(try await presented("B2B2"))

        // A renewal half done (the new certificate, the old key): refused, the renewed pair stays.
        try FileManager.default.removeItem(atPath: live.key)
        try FileManager.default.copyItem(atPath: first.key, toPath: live.key)
        kill(process.processIdentifier, SIGHUP)
        try await Task.sleep(for: .milliseconds(500))
        #expect(process.isRunning)
        #expect(try TestCA.presentedSerial(port: port) == "B2B2")

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let errors = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(errors.contains("TLS certificate not reloaded"), "\(errors)")
        #expect(errors.contains("does not belong to the certificate"), "\(errors)")
    }
}
