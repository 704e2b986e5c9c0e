import Foundation
import ServiceLifecycle
import Testing

@testable import ServiceSupport

/// A daemon stops by itself before systemd gives up on it: the service group's graceful shutdown and
/// cancellation limits fit within every shipped unit's `TimeoutStopSec`.
struct ShutdownLimitTests {
    static let units: String = {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("systemd").path
    }()

    @Test(arguments: ["kioskd.service", "clup-server.service"])
    func theStopLimitsFitTheUnitsStopTimeout(unit: String) throws {
        let text = try String(contentsOfFile: "\(Self.units)/\(unit)", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") })
        let value = line.dropFirst("TimeoutStopSec=".count)
        let seconds = try #require(Int64(value.hasSuffix("s") ? value.dropLast() : value), "\(line)")
        let stop = ServiceGroup.gracefulShutdownLimit + ServiceGroup.cancellationLimit
        #expect(stop + .seconds(1) < .seconds(seconds), "\(unit): \(stop) does not fit \(line)")
    }
}
