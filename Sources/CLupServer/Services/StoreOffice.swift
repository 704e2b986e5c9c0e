import Foundation
import KioskCore
import SyncWire

/// What the system manager and store managers do to stores, whether through the API (``StoreRoutes``) or
/// the console's pages: register a store and its manager, change its settings, enroll, list and revoke its
/// kiosks, see its line. Every check is here, once; callers have authenticated the caller already.
struct StoreOffice: Sendable {
    let database: any ServerStorage
    let logs: StoreQueues
    let contacts: DeviceContacts
    let passwords: PasswordChecks
    let fleet: Fleet

    struct Registration: Decodable {
        struct Manager: Decodable {
            var username: String
            var password: String
        }
        var store: StoreProfile
        var manager: Manager
    }

    struct Registered: Encodable, Sendable {
        var id: StoreID
        var manager: String
    }

    /// What a manager may change (`PATCH /v1/stores/{store}`); a field left out stays as it is.
    struct Settings: Codable, Equatable {
        var capacity: Int?
        var openingHours: [StoreProfile.Hours?]?
        var averageVisitMinutes: Int?
        var slotMinutes: Int?
        var slotSize: Int?
        /// An IANA name: a store registered with a fixed offset moves to its real zone.
        var timeZone: String?
        /// Absent: unchanged; `null`: tickets all the time the store is closed; a number: minutes before opening.
        var ticketsBeforeOpeningMinutes: Int??
        /// The store's languages, the main one first (``StoreProfile/languages``).
        var languages: [String]?
        var largePrint: Bool?
        var voiceVolume: Int?
        var footer: String?
        var recallMinutes: Int?
        var recalls: Int?
        var stopTicketsPastClosing: Bool?

        init(
            capacity: Int? = nil,
            openingHours: [StoreProfile.Hours?]? = nil,
            averageVisitMinutes: Int? = nil,
            slotMinutes: Int? = nil,
            slotSize: Int? = nil,
            timeZone: String? = nil,
            ticketsBeforeOpeningMinutes: Int?? = nil,
            languages: [String]? = nil,
            largePrint: Bool? = nil,
            voiceVolume: Int? = nil,
            footer: String? = nil,
            recallMinutes: Int? = nil,
            recalls: Int? = nil,
            stopTicketsPastClosing: Bool? = nil
        ) {
            self.languages = languages
            self.largePrint = largePrint
            self.voiceVolume = voiceVolume
            self.footer = footer
            self.recallMinutes = recallMinutes
            self.recalls = recalls
            self.stopTicketsPastClosing = stopTicketsPastClosing
            self.ticketsBeforeOpeningMinutes = ticketsBeforeOpeningMinutes
            self.capacity = capacity
            self.openingHours = openingHours
            self.averageVisitMinutes = averageVisitMinutes
            self.slotMinutes = slotMinutes
            self.slotSize = slotSize
            self.timeZone = timeZone
        }

        /// A misspelt setting is refused, not silently ignored.
        init(from decoder: any Decoder) throws {
            let names = try decoder.container(keyedBy: Name.self).allKeys
            if let unknown = names.first(where: { CodingKeys(stringValue: $0.stringValue) == nil }) {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: [unknown],
                        debugDescription: "not a setting: use capacity, openingHours, averageVisitMinutes, "
                            + "slotMinutes, slotSize, timeZone, ticketsBeforeOpeningMinutes, languages, largePrint, "
                            + "voiceVolume, footer, recallMinutes, recalls or stopTicketsPastClosing"
                    )
                )
            }
            let c = try decoder.container(keyedBy: CodingKeys.self)
            capacity = try c.decodeIfPresent(Int.self, forKey: .capacity)
            openingHours = try c.decodeIfPresent([StoreProfile.Hours?].self, forKey: .openingHours)
            averageVisitMinutes = try c.decodeIfPresent(Int.self, forKey: .averageVisitMinutes)
            slotMinutes = try c.decodeIfPresent(Int.self, forKey: .slotMinutes)
            slotSize = try c.decodeIfPresent(Int.self, forKey: .slotSize)
            timeZone = try c.decodeIfPresent(String.self, forKey: .timeZone)
            languages = try c.decodeIfPresent([String].self, forKey: .languages)
            largePrint = try c.decodeIfPresent(Bool.self, forKey: .largePrint)
            voiceVolume = try c.decodeIfPresent(Int.self, forKey: .voiceVolume)
            footer = try c.decodeIfPresent(String.self, forKey: .footer)
            recallMinutes = try c.decodeIfPresent(Int.self, forKey: .recallMinutes)
            recalls = try c.decodeIfPresent(Int.self, forKey: .recalls)
            stopTicketsPastClosing = try c.decodeIfPresent(Bool.self, forKey: .stopTicketsPastClosing)
            if c.contains(.ticketsBeforeOpeningMinutes) {
                ticketsBeforeOpeningMinutes = .some(
                    try c.decodeNil(forKey: .ticketsBeforeOpeningMinutes)
                        ? nil : try c.decode(Int.self, forKey: .ticketsBeforeOpeningMinutes)
                )
            }
        }

        private struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }

    /// Kiosks one store may have enrolled at once.
    static let maxDevices = 100

    /// A kiosk id: what shows in logs, metrics, pages and configuration files, so plain ASCII (a host name).
    static func isDeviceID(_ id: String) -> Bool {
        guard (1...64).contains(id.utf8.count), let first = id.unicodeScalars.first else { return false }
        func alphanumeric(_ c: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
        }
        return alphanumeric(first)
            && id.unicodeScalars.allSatisfy { alphanumeric($0) || "._-".unicodeScalars.contains($0) }
    }

    func register(_ registration: Registration) async throws -> Registered {
        do throws(Refusal) {
            try registration.store.validate()
        } catch {
            var refusal = error
            refusal.field = error.field.map { "store." + $0 }
            throw refusal
        }
        let username = registration.manager.username
        // Sizes in scalars (bounded in bytes) before any walk over characters.
        guard TextLimit(3...64).allows(username),
            username.allSatisfy({ $0.isLetter || $0.isNumber || "._-@".contains($0) })
        else { throw Refusal.invalid("3 to 64 letters, digits or . _ - @", field: "manager.username") }
        guard TextLimit(10...1024).allows(registration.manager.password) else {
            throw Refusal.invalid("10 to 1024 characters", field: "manager.password")
        }
        let passwordHash = try await passwords.hash(registration.manager.password)
        let record = try await database.register(
            registration.store,
            manager: username,
            passwordHash: passwordHash,
            at: database.clock.now()
        )
        try await logs.open(record, at: database.clock.now())
        return Registered(id: record.id, manager: username)
    }

    /// Applies `settings` to the store's profile (checked as a whole); a new capacity is also an event in the
    /// store's log, so every kiosk's door follows it at its next sync.
    func update(_ store: StoreID, _ settings: Settings) async throws -> StoreProfile {
        let live = try await logs.require(store)
        var profile = live.record.profile
        profile.capacity = settings.capacity ?? profile.capacity
        profile.openingHours = settings.openingHours ?? profile.openingHours
        profile.averageVisitMinutes = settings.averageVisitMinutes ?? profile.averageVisitMinutes
        profile.slotMinutes = settings.slotMinutes ?? profile.slotMinutes
        profile.slotSize = settings.slotSize ?? profile.slotSize
        profile.timeZone = settings.timeZone ?? profile.timeZone
        if let before = settings.ticketsBeforeOpeningMinutes { profile.ticketsBeforeOpeningMinutes = before }
        profile.languages = settings.languages ?? profile.languages
        profile.largePrint = settings.largePrint ?? profile.largePrint
        profile.voiceVolume = settings.voiceVolume ?? profile.voiceVolume
        // Bounded in bytes before anything walks it (validate() counts characters).
        if let footer = settings.footer, footer.utf8.count > 320 {
            throw Refusal.invalid("at most 80 characters", field: "footer")
        }
        profile.footer = settings.footer ?? profile.footer
        profile.recallMinutes = settings.recallMinutes ?? profile.recallMinutes
        profile.recalls = settings.recalls ?? profile.recalls
        profile.stopTicketsPastClosing = settings.stopTicketsPastClosing ?? profile.stopTicketsPastClosing
        try profile.validate()
        try await logs.change(profile, store: store, at: database.clock.now())
        return profile
    }

    func enroll(_ device: String, role: KioskRole = .both, store: StoreID) async throws -> Enrolled {
        _ = try await logs.require(store)
        guard Self.isDeviceID(device), device != ServerIssue.device else {
            throw Refusal.invalid(
                "1 to 64 letters, digits, '.', '_' or '-' starting with a letter or digit (the kiosk's host "
                    + "name, say), not '\(ServerIssue.device)'",
                field: "device"
            )
        }
        let enrolled = try await devices(store)
        guard enrolled.count < Self.maxDevices || enrolled.contains(where: { $0.device == device }) else {
            throw Refusal(.conflict, "this store has \(Self.maxDevices) kiosks — revoke one first", field: "device")
        }
        let credential = try await database.enroll(device: device, store: store, role: role, at: database.clock.now())
        logs.keyRingChanged(store)  // enrolled again: its key is gone until it registers one
        return Enrolled(store: store, device: device, role: role, credential: credential)
    }

    /// The store's kiosks, with when each last called and what needs a person (``Fleet``).
    func devices(_ store: StoreID) async throws -> [EnrolledDevice] {
        _ = try await logs.require(store)
        return try await fleet.kiosks(of: store)
    }

    func revoke(_ device: String, store: StoreID) async throws {
        _ = try await logs.require(store)
        guard try await database.revoke(device: device, store: store) else {
            throw Refusal.notFound("no kiosk '\(device.prefix(64))' is enrolled in this store")
        }
        logs.keyRingChanged(store)
        contacts.forget(device, of: store)
    }
}
