/// A waiting ticket's place in line: by the time it joined, ties broken by ticket id (its bytes, which sort
/// like its upper-case string). Every station and the server order the same tickets the same way.
///
/// The ticket's kind rides along, outside the key's identity (a ticket's kind never changes): the wait estimate
/// reads a long line's kinds with it, not one dictionary lookup a place.
struct LineKey: Sendable, Hashable, Comparable {
    var joined: Timestamp
    var id: TicketID
    var kind: TicketKind

    static func == (a: Self, b: Self) -> Bool { a.joined == b.joined && a.id == b.id }

    func hash(into hasher: inout Hasher) {
        hasher.combine(joined)
        hasher.combine(id)
    }

    static func < (a: Self, b: Self) -> Bool {
        if a.joined != b.joined { return a.joined < b.joined }
        return withUnsafeBytes(of: a.id.uuid) { x in
            withUnsafeBytes(of: b.id.uuid) { y in x.lexicographicallyPrecedes(y) }
        }
    }
}

extension [LineKey] {
    /// The first index whose element is not below `key` (binary search; the array is sorted).
    func lowerBound(_ key: LineKey) -> Int {
        partitionPoint { !($0 < key) }
    }

    /// The first index where `isAfter` holds, for a predicate false then true along the array.
    func partitionPoint(_ isAfter: (LineKey) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if isAfter(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    func index(of key: LineKey) -> Int? {
        let i = lowerBound(key)
        return i < count && self[i] == key ? i : nil
    }

    /// Inserts `key` in order; returns where.
    @discardableResult
    mutating func insert(_ key: LineKey) -> Int {
        let i = lowerBound(key)
        insert(key, at: i)
        return i
    }

    /// Removes `key` if present; returns where it was.
    @discardableResult
    mutating func remove(_ key: LineKey) -> Int? {
        guard let i = index(of: key) else { return nil }
        remove(at: i)
        return i
    }
}

/// The waiting line in order, kept in chunks of a few hundred keys, each its own copy-on-write array: a
/// copy of the queue shares them all, and a change to the copy copies one chunk — not the whole line, as
/// a single array would on every event while a station keeps two folds of a day.
struct LineOrder: Sendable, Sequence, Equatable {
    private static let maxChunk = 256
    private var chunks: [[LineKey]] = []
    private(set) var count = 0

    /// The first position where `isAfter` holds, for a predicate false then true along the line.
    func partitionPoint(_ isAfter: (LineKey) -> Bool) -> Int {
        var before = 0
        for chunk in chunks {
            if isAfter(chunk[chunk.count - 1]) { return before + chunk.partitionPoint(isAfter) }
            before += chunk.count
        }
        return before
    }

    func index(of key: LineKey) -> Int? {
        guard let (c, before) = chunk(for: key), let i = chunks[c].index(of: key) else { return nil }
        return before + i
    }

    /// Inserts `key` in order; returns its position.
    @discardableResult
    mutating func insert(_ key: LineKey) -> Int {
        defer { count += 1 }
        guard let last = chunks.last else {
            chunks.append([key])
            return 0
        }
        // After every key: the last chunk.
        let (c, before) = chunk(for: key) ?? (chunks.count - 1, count - last.count)
        let i = chunks[c].insert(key)
        if chunks[c].count > Self.maxChunk {
            let upper = Array(chunks[c][(Self.maxChunk / 2)...])
            chunks[c].removeSubrange((Self.maxChunk / 2)...)
            chunks.insert(upper, at: c + 1)
        }
        return before + i
    }

    /// Removes `key` if it is in line; returns where it was.
    @discardableResult
    mutating func remove(_ key: LineKey) -> Int? {
        guard let (c, before) = chunk(for: key), let i = chunks[c].remove(key) else { return nil }
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
        return before + i
    }

    /// The keys at positions `range` (clamped to the line).
    func keys(_ range: Range<Int>) -> [LineKey] {
        var result: [LineKey] = []
        result.reserveCapacity(Swift.max(0, Swift.min(range.upperBound, count) - range.lowerBound))
        var before = 0
        for chunk in chunks {
            let low = Swift.max(range.lowerBound - before, 0)
            let high = Swift.min(range.upperBound - before, chunk.count)
            if low < high { result.append(contentsOf: chunk[low..<high]) }
            before += chunk.count
            if before >= range.upperBound { break }
        }
        return result
    }

    /// Equal lines hold the same keys in the same order, however they are chunked.
    static func == (a: Self, b: Self) -> Bool { a.count == b.count && a.elementsEqual(b) }

    func makeIterator() -> FlattenSequence<[[LineKey]]>.Iterator { chunks.joined().makeIterator() }

    /// The chunk `key` belongs in (the first whose last key is not below it) and the keys before it.
    private func chunk(for key: LineKey) -> (Int, Int)? {
        var before = 0
        for (c, chunk) in chunks.enumerated() {
            if !(chunk[chunk.count - 1] < key) { return (c, before) }
            before += chunk.count
        }
        return nil
    }
}
