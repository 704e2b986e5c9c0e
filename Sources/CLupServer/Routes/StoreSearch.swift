import Foundation
import Hummingbird

/// What a shopper looks for: stores near a point (`lat`, `lon`, `radiusKm`), stores whose name or address
/// holds some words (`q`: a name, a street, a town), or both. Read from a request's query, checked before
/// anything is computed with it; the API's store list and the start page read it the same way.
struct StoreSearch: Sendable, Equatable {
    struct Point: Sendable, Equatable {
        var latitude: Double
        var longitude: Double
    }

    var point: Point?
    var radiusKm: Double = 10
    /// The words of `q`, folded (case and accents ignored); every one must appear in the name or address.
    var words: [String]?

    static let maxResults = 50
    static let maxQueryLength = 80

    init(point: Point? = nil, radiusKm: Double = 10, text: String? = nil) {
        self.point = point
        self.radiusKm = radiusKm
        words = text.map(Self.fold).map { $0.split(separator: " ").map(String.init) }
    }

    /// The query parameters a search reads.
    static let parameters: Set<String> = ["lat", "lon", "radiusKm", "q"]

    /// The search a request's query asks for, or the first thing wrong with it. `onlySearch`: any other
    /// parameter is refused too (the API's; the start page also reads `lang`).
    init(_ request: Request, onlySearch: Bool = false) throws(Refusal) {
        let query = request.uri.queryParameters
        if onlySearch, let other = query.first(where: { !Self.parameters.contains(String($0.key)) }) {
            throw Refusal.invalid(
                "unknown parameter '\(String(other.key).prefix(40))': give lat and lon, radiusKm, or q",
                field: "search"
            )
        }
        func number(_ name: String, in range: ClosedRange<Double>) throws(Refusal) -> Double? {
            guard let text = query[name[...]] else { return nil }
            guard let number = Double(String(text)), range.contains(number) else {
                throw Refusal.invalid("must be a number in \(range.lowerBound)…\(range.upperBound)", field: name)
            }
            return number
        }
        let latitude = try number("lat", in: -90...90)
        let longitude = try number("lon", in: -180...180)
        let radius = try number("radiusKm", in: 0.1...500)
        var point: Point?
        switch (latitude, longitude) {
        case (let latitude?, let longitude?): point = Point(latitude: latitude, longitude: longitude)
        case (nil, nil):
            if radius != nil { throw Refusal.invalid("give radiusKm with lat and lon", field: "radiusKm") }
        case (nil, _): throw Refusal.invalid("give lat with lon", field: "lat")
        case (_, nil): throw Refusal.invalid("give lon with lat", field: "lon")
        }
        var text: String?
        if let raw = query["q"] {
            let trimmed = String(raw).trimmingCharacters(in: .whitespacesAndNewlines)
            // Counted in code points, as the schema's maxLength counts: "Ṱ̺̺o" is one character but four of them.
            guard !trimmed.isEmpty, raw.unicodeScalars.count <= Self.maxQueryLength,
                !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw Refusal.invalid(
                    "a store's name, street or town: 1 to \(Self.maxQueryLength) characters",
                    field: "q"
                )
            }
            text = trimmed
        }
        guard point != nil || text != nil else {
            throw Refusal.invalid("give lat and lon (a point to search near), or q (a name or town)", field: "q")
        }
        self.init(point: point, radiusKm: radius ?? 10, text: text)
    }

    /// Whether every word is in the store's name or address.
    static func matches(_ words: [String], _ profile: StoreProfile) -> Bool {
        let haystack = fold(profile.name + " " + profile.address)
        return words.allSatisfy { haystack.contains($0) }
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
