import FoundationEssentials
import Testing

@testable import KioskCore

/// The chunked waiting line answers exactly as one sorted array would, across chunk splits and merges, and
/// a copy shares it until changed.
@Suite struct LineOrderTests {
    @Test func agreesWithASortedArrayOverRandomInsertsAndRemoves() {
        var rng = SystemRandomNumberGenerator()
        var line = LineOrder()
        var sorted: [LineKey] = []
        for step in 0..<6000 {
            if sorted.isEmpty || step < 3000 || Int.random(in: 0..<3, using: &rng) > 0 && step % 1000 < 700 {
                let key = LineKey(
                    joined: Timestamp(milliseconds: Int64.random(in: 0..<500, using: &rng)),
                    id: UUID(),
                    kind: [.paper, .app, .booking].randomElement(using: &rng)!
                )
                #expect(line.insert(key) == sorted.insert(key))
            } else {
                let key = sorted.randomElement(using: &rng)!
                #expect(line.remove(key) == sorted.remove(key))
                #expect(line.remove(key) == nil)
            }
            if step % 97 == 0 {
                #expect(Array(line) == sorted)
                let probe = Timestamp(milliseconds: Int64.random(in: -1...501, using: &rng))
                #expect(line.partitionPoint { $0.joined > probe } == sorted.partitionPoint { $0.joined > probe })
                let a = Int.random(in: 0...sorted.count, using: &rng)
                let b = Int.random(in: a...sorted.count + 5, using: &rng)
                #expect(line.keys(a..<b) == Array(sorted[a..<min(b, sorted.count)]))
                if let key = sorted.randomElement(using: &rng) { #expect(line.index(of: key) == sorted.index(of: key)) }
            }
        }
        #expect(line.count == sorted.count && sorted.count > 1000)
        // A copy is its own line once changed.
        var copy = line
        let extra = LineKey(joined: Timestamp(milliseconds: 250), id: UUID(), kind: .app)
        copy.insert(extra)
        #expect(copy.count == line.count + 1 && line.index(of: extra) == nil && copy != line)
        copy.remove(extra)
        #expect(copy == line)
    }
}
