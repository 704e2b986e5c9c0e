/// The store's settings a kiosk uses now and where each came from (`/status`): the store's on clup-server once
/// a page of its log said them, else the box's configuration (``StoreSchedule/settings``).
public struct EffectiveSettings: Codable, Sendable, Equatable {
    public enum Source: String, Codable, Sendable {
        /// The store's, from clup-server (kept on disk: a kiosk that starts offline still has them).
        case server
        /// kioskd.toml's, until the first sync.
        case configuration = "kioskd.toml"
    }

    public struct Setting<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
        public var value: Value
        public var from: Source
    }

    /// The store's name on its tickets and pages.
    public var name: Setting<String>
    /// ``SpokenLanguage`` codes, the main one first.
    public var languages: Setting<[String]>
    public var callWindowMinutes: Setting<Int>
    public var averageVisitMinutes: Setting<Int>
    public var largePrint: Setting<Bool>
    public var voiceVolume: Setting<Int>
    public var footer: Setting<String>
    /// Minutes after a call that a ticket not seen at the door is called again (0: never), and how many times
    /// (``RecallPolicy``); set only on clup-server.
    public var recallMinutes: Setting<Int>
    public var recalls: Setting<Int>
    /// No ticket once the wait a new one would be told passes closing (``LastTickets``); set only on clup-server.
    public var stopTicketsPastClosing: Setting<Bool>
}
