import Foundation

/// Percentiles of a set of samples (nearest-rank), in the unit they were taken.
struct Samples {
    private(set) var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }

    mutating func merge(_ other: Samples) { values += other.values }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    var p50: Double { percentile(50) }
    var p99: Double { percentile(99) }
    var count: Int { values.count }
}

extension Duration {
    var microseconds: Double {
        let (s, atto) = components
        return Double(s) * 1e6 + Double(atto) / 1e12
    }
}

func fmt(_ value: Double, _ digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}

/// A process's resident set (VmRSS from /proc), in bytes; this process's when `pid` is nil.
func residentBytes(of pid: Int32? = nil) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}
