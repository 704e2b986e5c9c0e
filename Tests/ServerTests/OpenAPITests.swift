import Foundation
import Testing

@testable import Rigs

/// docs/clup-server.openapi.yaml describes exactly the routes the server has: no route undocumented, no
/// documented route missing.
@Suite struct OpenAPITests {
    @Test func theDocumentListsEveryRouteAndNoOther() async throws {
        let server = try await ServerRig()
        let served = Set(server.app.routes)
        await server.stop()
        let text = try String(contentsOfFile: "\(HIL.packageRoot)/docs/clup-server.openapi.yaml", encoding: .utf8)
        var documented = Set<String>()
        var path: String?
        var inPaths = false
        for line in text.split(separator: "\n") {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "),
                let method = ["get", "post", "put", "delete", "patch"].first(where: { line == "    \($0):" })
            {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        #expect(!served.isEmpty)
        #expect(served.subtracting(documented).isEmpty, "not documented: \(served.subtracting(documented).sorted())")
        #expect(
            documented.subtracting(served).isEmpty,
            "documented, not served: \(documented.subtracting(served).sorted())"
        )
    }
}
