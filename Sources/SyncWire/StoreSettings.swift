import KioskCore

/// What a store decides that its kiosks follow, set once on clup-server (the console, `PATCH
/// /v1/stores/{id}`) and carried by every page of the log (``EventPage/settings``): a kiosk keeps the last it
/// received on disk and uses it offline. A field a kiosk does not know is ignored (a newer server's), a field
/// the server leaves out keeps the kiosk's own configuration. Capacity and hours travel too, as events and as
/// ``EventPage/hours``.
public struct StoreSettings: Codable, Sendable, Equatable {
    /// The store's name, as its tickets and pages show it.
    public var name: String?
    /// The languages of what customers read and hear — the printed ticket, the window display, the voice —
    /// first the main one (``SpokenLanguage`` codes: `en`, `it`).
    public var languages: [String]?
    /// Minutes a called ticket may go unused before it expires: the doors admit within it, the server's
    /// no-show expiry ends it.
    public var callWindowMinutes: Int?
    /// The visit the store expects, in minutes: the wait estimate's start until the store's own visits are learnt.
    public var averageVisitMinutes: Int?
    /// Large print on every ticket, for people with low vision.
    public var largePrint: Bool?
    /// The voice's volume, 0–100 percent.
    public var voiceVolume: Int?
    /// The store's line at the bottom of each ticket and on the window display (empty: none).
    public var footer: String?
    /// Minutes after a call that a ticket not seen at the door is called again (0: no second call), and how many
    /// times at most (``RecallPolicy``). A kiosk from before them calls a ticket once.
    public var recallMinutes: Int?
    public var recalls: Int?
    /// No ticket is handed out once the wait a new one would be told passes the day's closing (``LastTickets``). A
    /// kiosk from before it hands tickets out until closing.
    public var stopTicketsPastClosing: Bool?

    public init(
        name: String? = nil,
        languages: [String]? = nil,
        callWindowMinutes: Int? = nil,
        averageVisitMinutes: Int? = nil,
        largePrint: Bool? = nil,
        voiceVolume: Int? = nil,
        footer: String? = nil,
        recallMinutes: Int? = nil,
        recalls: Int? = nil,
        stopTicketsPastClosing: Bool? = nil
    ) {
        self.name = name
        self.languages = languages
        self.callWindowMinutes = callWindowMinutes
        self.averageVisitMinutes = averageVisitMinutes
        self.largePrint = largePrint
        self.voiceVolume = voiceVolume
        self.footer = footer
        self.recallMinutes = recallMinutes
        self.recalls = recalls
        self.stopTicketsPastClosing = stopTicketsPastClosing
    }

    public static let averageVisitRange = 1...1440
    public static let voiceVolumeRange = 0...100
    /// A footer: at most 80 characters (and 320 bytes) of text without control characters.
    public static func valid(footer: String) -> Bool {
        footer.utf8.count <= 320 && footer.unicodeScalars.count <= 80
            && !footer.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The most languages a store prints and speaks in.
    public static let mostLanguages = 2
    public static let callWindowRange = 1...240

    /// The languages as the kiosk knows them, in order, those it does not know left out; nil when none is left.
    public var spokenLanguages: [SpokenLanguage]? {
        let known = (languages ?? []).compactMap(SpokenLanguage.init(rawValue:))
        return known.isEmpty ? nil : Array(known.prefix(Self.mostLanguages))
    }

    /// Whether `codes` may be a store's languages: 1 to ``mostLanguages`` known codes, none twice.
    public static func valid(languages codes: [String]) -> Bool {
        (1...mostLanguages).contains(codes.count) && Set(codes).count == codes.count
            && codes.allSatisfy { SpokenLanguage(rawValue: $0) != nil }
    }
}
