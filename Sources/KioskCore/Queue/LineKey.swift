/// A waiting ticket's place in line: by the time it joined, ties broken by ticket id (its bytes, which sort
/// like its upper-case string). Every station and the server order the same tickets the same way.
struct LineKey: Sendable, Hashable, Comparable {
    var joined: Timestamp
    var id: TicketID

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
