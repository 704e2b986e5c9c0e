import Foundation
import Glibc
import Testing

@testable import Rigs

/// docs/clup-server.openapi.yaml is the contract, and schemathesis (an independent fuzzer, Scripts/api_contract.py)
/// holds clup-server to it: every operation, with the admin token, a manager's session, a kiosk's credential
/// and a holder token where they are needed, every check (no 5xx, only documented statuses, bodies and SSE
/// events as their schemas say, schema-valid data accepted and invalid data refused, authentication enforced,
/// 405 with Allow for undocumented methods). The server is its own process with the production limits and
/// must still be serving afterwards.
@Suite(.serialized) struct ContractTests {
    static var schemathesisReady: Bool {
        HIL.strict
            || HIL.python.map {
                FileManager.default.isExecutableFile(
                    atPath: URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("schemathesis")
                        .path
                )
            } == true
    }

    @Test(
        .enabled(
            if: schemathesisReady && FileManager.default.isExecutableFile(atPath: HIL.clupServer),
            "needs clup-server built and schemathesis in .venv-test (make test installs it)"
        )
    )
    func theServerKeepsItsOpenAPIContract() async throws {
        let python = try #require(HIL.python, "no .venv-test Python: run make test")
        let directory = HIL.temporaryDirectory("contract")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try HIL.freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: HIL.clupServer)
        server.arguments = [
            "--port", "\(port)", "--database", "\(directory)/clup.sqlite", "--log-level", "error",
            // Scripts/api_contract.py gives each operation a client address of its own.
            "--trusted-proxy", "127.0.0.1/32",
        ]
        server.environment = ["CLUP_ADMIN_TOKEN": ServerRig.adminToken]
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"
        var up = false
        for _ in 0..<200 where !up {
            up = (try? HIL.run("curl", ["-fsS", "\(base)/healthz"]).status) == 0
            if !up { try await Task.sleep(for: .milliseconds(25)) }
        }
        try #require(up, "clup-server did not start")

        let run = try HIL.run(
            python,
            [
                "\(HIL.packageRoot)/Scripts/api_contract.py", base, ServerRig.adminToken,
                "\(HIL.packageRoot)/docs/clup-server.openapi.yaml", "--max-examples", "50",
            ]
        )
        let summary = run.output.components(separatedBy: "SUMMARY").last ?? run.output
        #expect(run.status == 0, "schemathesis found failures:\n\(run.output.suffix(6000))\n\(run.error.suffix(2000))")
        // Every operation of the document was exercised (none skipped for want of data or credentials).
        let selected = summary.firstMatch(of: /Selected: (\d+)\/(\d+)/)
        let tested = summary.firstMatch(of: /Tested: (\d+)/)
        #expect(selected != nil && selected?.1 == selected?.2 && tested?.1 == selected?.1, "\(summary)")
        let cases = summary.firstMatch(of: /(\d+) generated, (\d+) passed/)
        #expect(cases != nil && cases?.1 == cases?.2 && Int(cases?.1 ?? "0") ?? 0 > 500, "\(summary)")
        #expect(server.isRunning, "clup-server exited during the run")
        #expect(try HIL.run("curl", ["-fsS", "\(base)/healthz"]).output == "ok")
        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
    }
}
