import KioskCore
import Logging

/// The duties that write to the stores' logs by themselves, once for the fleet (the services that run them
/// hold the duties' lease): the business day's start and the no-show expiry. Functions of the time they are
/// given, so a simulation on a virtual clock (`clup-sim`) runs exactly what the server runs.
extension StoreQueues {
    /// Writes `dayStarted` for every store whose log has not started its current business day, or the day's
    /// start again where the store's hours changed after its line began (by its manager, or a kiosk's copy of
    /// old hours that reached the log first).
    public func startDueDays(at now: Timestamp, logger: Logger) async {
        for live in all {
            let calendar = live.record.profile.calendar
            let today = calendar.businessDay(at: now)
            let event: StoreEvent
            let what: String
            if let day = live.state.day, day > today, let hours = live.state.hours, now < hours.opens {
                // New hours put the store in an earlier business day than the one its line waits for, which has
                // not opened yet (hours changed in the evening to open now): that day opens now, numbered as it is.
                guard hours != calendar.hours(of: today) else { continue }
                event = calendar.dayRestated(day, as: today, store: live.record.id, device: ServerIssue.device, at: now)
                what = "business day's hours changed"
            } else if let day = live.state.day, day >= today {
                guard day == today, live.state.hours != calendar.hours(of: day) else { continue }
                event = calendar.dayRestated(day, store: live.record.id, device: ServerIssue.device, at: now)
                what = "business day's hours changed"
            } else {
                event = calendar.dayStarted(today, store: live.record.id, device: ServerIssue.device)
                what = "business day started"
            }
            do {
                _ = try await append([event], store: live.record.id)
                logger.info("\(what)", metadata: ["store": "\(live.record.id)", "day": "\(today.number)"])
            } catch {
                logger.error(
                    "cannot start the business day",
                    metadata: ["store": "\(live.record.id)", "error": "\(error)"]
                )
            }
        }
    }

    /// Writes `ticketExpired` for called tickets not used within the call window, in every store — the same
    /// rule the door stations apply (the reducer takes the first expiry of a ticket and ignores the others), so
    /// app tickets expire even in a store whose door is offline.
    public func expireNoShows(at now: Timestamp, policy: AdmissionPolicy, logger: Logger) async {
        for live in all {
            let due = Admission.noShows(queue: live.state, now: now, policy: policy)
            guard !due.isEmpty else { continue }
            let events = due.map {
                StoreEvent.new(.ticketExpired($0), store: live.record.id, device: ServerIssue.device, at: now)
            }
            do {
                _ = try await append(events, store: live.record.id)
            } catch {
                logger.error("cannot write expiries", metadata: ["store": "\(live.record.id)", "error": "\(error)"])
            }
        }
    }
}
