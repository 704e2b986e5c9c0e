import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import Rigs

/// clup-server starts from a store's last snapshot and folds only the events after it, never the store's whole
/// history (issue "clup-server starts from today"): the queue it starts with is exactly the one a fold of the
/// whole log gives, on both backends, and a day's figures still come from the log.
@Suite(.serialized) struct StartFromTodayTests {
    static let zone = StoreTimeZone.standardStore

    @Test(arguments: Backend.available)
    func aStartFromTheSnapshotHoldsWhatTheWholeLogGives(_ backend: Backend) async throws {
        // The server's clock a week back while the history is written: its own duties (the day's start, the
        // no-show expiry) then write nothing about the days of the history.
        let offset = WallClock.Offset()
        offset.advance(by: .seconds(-7 * 86_400))
        let server = try await ServerRig(clock: .shifted(by: offset), backend: backend)
        do {
            let store = try await server.registerStore(["capacity": 3])
            let logs = server.app.logs
            let today = BusinessDay(localDateOf: WallClock.system.now(), zone: Self.zone)
            var history = History(store: store, bookedFor: BusinessDay(number: today.number + 1))
            // Six days of a door; the live state is kept after the third.
            for d in (1...6).reversed() { history.day(BusinessDay(number: today.number - Int64(d)), zone: Self.zone) }
            let half = history.events.count / 2
            _ = try await logs.append(Array(history.events[..<half]), store: store)
            #expect(try await logs.keepSnapshots() >= 1)
            let kept = try #require(try await server.app.database.snapshot(store: store))
            _ = try await logs.append(Array(history.events[half...]), store: store)

            // A start (another replica, or this one again) from the kept state and the events after it.
            let started = try await StoreQueues(database: server.app.database)
            let fresh = try #require(started.store(store))
            let running = try #require(logs.store(store))
            let whole = try await server.app.database.events(store: store, after: 0, limit: .max)
            #expect(kept.sequence > 0 && kept.sequence < whole.count)
            var replayed = QueueState(capacity: 3)
            var traffic = StoreTraffic()
            for event in whole {
                traffic.observe(event, before: replayed)
                replayed.apply(event)
            }
            #expect(fresh.lastSequence == running.lastSequence)
            #expect(fresh.state == replayed, "the start's queue is not the whole log's")
            #expect(fresh.state == running.state)
            #expect(fresh.state.waitingCount == replayed.waitingCount && fresh.state.inside == replayed.inside)
            let now = logs.clock.now()
            #expect(fresh.state.called(at: now) == replayed.called(at: now))
            #expect(fresh.traffic == traffic, "the wait model's weeks differ")
            // What lives across the days' starts came along: the booking for tomorrow, yesterday's printer.
            #expect(fresh.state.entries[history.booking!.id] != nil)
            // One day's tickets, not six.
            #expect(fresh.state.snapshot.ticketCount < history.issued / 3)

            // A day's figures come from the log, whatever the live state holds.
            offset.advance(by: .seconds(7 * 86_400))
            let first = BusinessDay(number: today.number - 6)
            let (y, m, d) = first.civilDate
            let date = String(format: "%04d-%02d-%02d", Int(y), Int(m), Int(d))
            let report = try await server.call("GET", "/v1/stores/\(store.uuidString)/report?date=\(date)")
            #expect(report.status == 200, "\(report.body)")
            #expect(report.body["admitted"] as? Int == history.admittedByDay[first.number])

            // Retention: the events older than 3 days that the kept state covers go; a start is the same. (The
            // server's duties have started today by now: its clock is today's since the report.)
            try await Task.sleep(for: .seconds(2))
            #expect(try await logs.keepSnapshots() == 1)
            let keptNow = try #require(try await server.app.database.snapshot(store: store)).sequence
            // The log as it is now: the server's own duties may have written since `whole` was read (on a loaded
            // machine, PostgreSQL's lease comes late), stamped by its clock of a week back.
            let before = try await server.app.database.events(store: store, after: 0, limit: .max)
            let removal = WallClock.system.now()
            let removed = try await logs.removeEvents(olderThan: 3, at: removal)
            let left = try await server.app.database.events(store: store, after: 0, limit: .max)
            let cut = removal - .seconds(3 * 86_400)
            let due = before.count { $0.time < cut && ($0.sequence ?? .max) <= keptNow }
            #expect(removed > 0 && removed == due, "removed \(removed) of the \(due) older events the snapshot covers")
            #expect(left.count == before.count - removed)
            #expect(left.allSatisfy { $0.time >= cut || ($0.sequence ?? 0) > keptNow })
            let afterRetention = try #require(try await StoreQueues(database: server.app.database).store(store))
            #expect(afterRetention.state == logs.store(store)?.state)
            let yesterday = BusinessDay(number: today.number - 1)
            let (yy, ym, yd) = yesterday.civilDate
            let recent = try await server.call(
                "GET",
                "/v1/stores/\(store.uuidString)/report?date=\(String(format: "%04d-%02d-%02d", Int(yy), Int(ym), Int(yd)))"
            )
            #expect(recent.body["admitted"] as? Int == history.admittedByDay[yesterday.number])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A replica that was away while more than a page of a store's log was written (a lost connection)
    /// starts that store again from its kept state instead of reading everything it missed: with the events
    /// the kept state covers removed, it still ends with the running replica's queue.
    @Test func aReplicaBackFromALongAbsenceStartsFromTheKeptState() async throws {
        let offset = WallClock.Offset()
        offset.advance(by: .seconds(-7 * 86_400))
        let server = try await ServerRig(clock: .shifted(by: offset))
        do {
            let store = try await server.registerStore(["capacity": 3])
            let away = try await StoreQueues(database: server.app.database)
            let today = BusinessDay(localDateOf: WallClock.system.now(), zone: Self.zone)
            var history = History(store: store, bookedFor: BusinessDay(number: today.number + 1), perDay: 300)
            for d in (1...6).reversed() { history.day(BusinessDay(number: today.number - Int64(d)), zone: Self.zone) }
            #expect(history.events.count > StoreQueues.pageSize)
            _ = try await server.app.logs.append(history.events, store: store)
            #expect(try await server.app.logs.keepSnapshots() == 1)
            let kept = try #require(try await server.app.database.snapshot(store: store)).sequence
            let removed = try await server.app.database.removeEvents(
                store: store,
                before: WallClock.system.now(),
                through: kept
            )
            #expect(removed > StoreQueues.pageSize)
            try await away.catchUpEverything()
            let running = try #require(server.app.logs.store(store))
            #expect(away.store(store)?.lastSequence == running.lastSequence)
            #expect(away.store(store)?.state == running.state)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A store's days as a door writes them: the day's start at 07:00 with hours 08:00–20:00, forty paper
    /// tickets, most taken and admitted, some left to expire, exits; one booking for tomorrow, one ticket left
    /// in the printer at closing.
    struct History {
        let store: StoreID
        var events: [StoreEvent] = []
        var issued = 0
        var admittedByDay: [Int64: Int] = [:]
        var booking: Ticket?
        let bookedFor: BusinessDay
        let perDay: Int

        init(store: StoreID, bookedFor: BusinessDay, perDay: Int = 40) {
            self.store = store
            self.bookedFor = bookedFor
            self.perDay = perDay
        }

        mutating func day(_ day: BusinessDay, zone: StoreTimeZone) {
            let midnight = zone.instant(localSeconds: day.number * 86_400)
            let hours = DayHours(opens: midnight + .seconds(8 * 3_600), closes: midnight + .seconds(20 * 3_600))
            add(.dayStarted(day, hours: hours), at: midnight + .seconds(7 * 3_600))
            for n in 1...perDay {
                let time = hours.opens + .milliseconds(Int64(n) * 36_000_000 / Int64(perDay))
                let ticket = Ticket(
                    id: .v7(at: time),
                    store: store,
                    kind: .paper,
                    code: TicketCode(prefix: "A", number: n),
                    issuedAt: time,
                    issuer: "door"
                )
                issued += 1
                add(.ticketIssued(ticket), at: time)
                if n == perDay { continue }  // left in the printer
                add(.ticketTaken(ticket.id), at: time + .seconds(5))
                if n % 7 == 0 { continue }  // never came: expires
                add(.ticketAdmitted(ticket.id, door: "door"), at: time + .seconds(60))
                admittedByDay[day.number, default: 0] += 1
                add(.customerExited, at: time + .seconds(700))
            }
            if booking == nil {
                let time = hours.opens + .seconds(3_600)
                let start = zone.instant(localSeconds: bookedFor.number * 86_400 + 9 * 3_600)
                let ticket = Ticket(
                    id: .v7(at: time),
                    store: store,
                    kind: .booking,
                    code: TicketCode(prefix: "B", number: 1),
                    issuedAt: time,
                    slot: BookingSlot(start: start, end: start + .seconds(900)),
                    issuer: "clup-server"
                )
                booking = ticket
                add(.ticketIssued(ticket), at: time)
            }
        }

        private mutating func add(_ body: StoreEvent.Body, at time: Timestamp) {
            events.append(StoreEvent(id: .v7(at: time), store: store, device: "door", time: time, body: body))
        }
    }
}
