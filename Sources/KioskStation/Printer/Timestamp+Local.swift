import KioskCore

/// Times as the store's people read them, on the store's clock (``StoreSchedule``), not the box's. Computed from
/// the zone's offset: no C library zone (the box's `TZ`) and no Foundation formatter (ICU's tables, about
/// 5 MB of a kiosk's resident memory for a date).
extension Timestamp {
    /// Local date and time as printed on a ticket: `2026-11-22 09:41`.
    static func localText(_ time: Timestamp, zone: StoreTimeZone) -> String {
        let local = zone.localSeconds(at: time)
        let day = local.floorDivided(by: 86_400)
        let minutes = (local - day * 86_400) / 60
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(BusinessDay(number: day).dateText) \(two(minutes / 60)):\(two(minutes % 60))"
    }
}
