import CLupServer
import Foundation
import KioskCore
import SyncWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// Staff pause and resume the calls (``LinePause``) through the server: the store's manager (API and console), a
/// door kiosk in its own name for up to an hour, and the hostile forms — another store's manager, a printer's
/// credential, a door speaking for someone else or pausing for the day, values out of range.
@Suite(.serialized) struct PauseTests {
    static let speaks2 = StaffCountTests.speaks2

    static func now() -> Timestamp { Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)) }

    /// An app ticket's id.
    static func take(_ server: ServerRig, _ store: StoreID, from n: Int) async throws -> String {
        let answer = try await server.call(
            "POST",
            "/v1/stores/\(store.uuidString)/tickets",
            token: nil,
            headers: ["X-Forwarded-For": "10.9.0.\(n)"]
        )
        return try #require((answer.body["ticket"] as? [String: Any])?["id"] as? String, "\(answer)")
    }

    @Test func aManagerPausesTheCallsTheLineKeepsItsPlacesAndResumes() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["capacity": 1], manager: "anna")
            let other = try await server.registerStore(["name": "Other Market"], manager: "bruno")
            let anna = try await StaffCountTests.login(server, "anna")
            let bruno = try await StaffCountTests.login(server, "bruno")
            let base = "/v1/stores/\(store.uuidString)"
            let first = try await Self.take(server, store, from: 1)
            let second = try await Self.take(server, store, from: 2)
            #expect(try await server.call("GET", "/v1/tickets/\(first)").body["stage"] as? String == "called")
            let toldBefore = try await server.call("GET", "/v1/tickets/\(second)")
            let waitBefore = try #require(toldBefore.body["estimatedWaitSeconds"] as? Int)

            let paused = try await server.call(
                "POST",
                base + "/pause",
                token: anna,
                json: ["reason": "restock of aisle 4", "minutes": 30]
            )
            #expect(paused.status == 200 && paused.body["paused"] as? Bool == true, "\(paused)")
            let pause = paused.body["pause"] as? [String: Any]
            #expect(pause?["by"] as? String == "anna" && pause?["reason"] as? String == "restock of aisle 4")
            // Nobody is called while paused; the holders keep their places and are told the pause's rest.
            let held = try await server.call("GET", "/v1/tickets/\(first)")
            #expect(held.body["stage"] as? String == "waiting" && held.body["peopleAhead"] as? Int == 0, "\(held)")
            #expect((held.body["pause"] as? [String: Any])?["reason"] as? String == "restock of aisle 4")
            let told = try await server.call("GET", "/v1/tickets/\(second)")
            let waitPaused = try #require(told.body["estimatedWaitSeconds"] as? Int)
            #expect(waitPaused >= waitBefore + 29 * 60, "told \(waitPaused) s while paused, \(waitBefore) s before")
            #expect(server.queue(store)?.calledCount(at: Self.now()) == 0)
            // Tickets are still issued while paused.
            #expect(try await server.takeAppTicket(store: store, from: 3, network: 9).status == 201)

            // Another store's manager, nobody, a kiosk's credential: none of them pause or resume here.
            let credential = try await server.enroll("door-1", store: store, role: .door)
            for (token, status) in [(bruno, 403), (nil, 401), (credential, 401)] as [(String?, Int)] {
                let answer = try await server.call("POST", base + "/resume", token: token, json: [:])
                #expect(answer.status == status, "\(String(describing: token?.prefix(6))): \(answer)")
            }
            #expect(server.queue(store)?.isPaused(at: Self.now()) == true)
            #expect(server.queue(other)?.pauses.latest == nil)
            // Out of range, the wrong shape, too large a body: named and refused, the pause as it was.
            let bad: [(Any, String?)] = [
                (["reason": "", "minutes": 5], "reason"), (["reason": String(repeating: "x", count: 121)], "reason"),
                (["reason": "x", "minutes": 0], "minutes"), (["reason": "x", "minutes": 721], "minutes"),
                (["reason": "x", "minutes": 1e300], nil), (["minutes": 5], nil),
                (["reason": String(repeating: "x", count: 5_000)], nil),
            ]
            for (body, field) in bad {
                let answer = try await server.call("POST", base + "/pause", token: anna, json: body)
                #expect((400..<500).contains(answer.status), "\(body): \(answer.status)")
                if let field { #expect(answer.body["field"] as? String == field, "\(body): \(answer.body)") }
            }
            #expect(server.queue(store)?.pauses.latest?.reason == "restock of aisle 4")

            let resumed = try await server.call("POST", base + "/resume", token: anna, json: [:])
            #expect(resumed.status == 200 && resumed.body["paused"] as? Bool == false, "\(resumed)")
            #expect(try await server.call("GET", "/v1/tickets/\(first)").body["stage"] as? String == "called")
            // Resuming again writes nothing.
            let again = try await server.call("POST", base + "/resume", token: anna, json: [:])
            #expect(again.status == 200)

            let report = try await server.call("GET", base + "/report", token: anna)
            #expect(report.body["pauses"] as? Int == 1, "\(report.body)")
            let (_, csv) = try await server.exchange("GET", base + "/export", token: anna)
            let text = String(decoding: csv, as: UTF8.self)
            #expect(text.contains("calls paused by anna until") && text.contains(": restock of aisle 4"))
            #expect(text.components(separatedBy: "calls resumed by anna").count == 2, "one resume: \(text)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aDoorPausesInItsOwnNameForAtMostAnHour() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["capacity": 10])
            let door = try await server.enroll("door-1", store: store, role: .door)
            let printer = try await server.enroll("printer-1", store: store, role: .printer)
            let now = Self.now()
            func push(
                _ body: StoreEvent.Body,
                as device: String,
                token: String,
                into target: StoreID? = nil
            ) async throws -> (Int, [String: Any]) {
                let into = target ?? store
                let event = StoreEvent(id: .v7(at: now), store: into, device: device, time: now, body: body)
                let answer = try await AttackRoundThreeTests.push(
                    server,
                    [event],
                    store: into,
                    credential: token,
                    headers: Self.speaks2
                )
                return (answer.status, answer.body)
            }
            let hour = now + .seconds(3600)
            let refused: [(StoreEvent.Body, String, String, Int, String)] = [
                (.linePaused(reason: "x", until: hour, by: "anna"), "door-1", door, 403, "events[0].body.by"),
                // Until resumed, or longer than an hour: the manager's, in the console.
                (.linePaused(reason: "x", until: nil, by: "door-1"), "door-1", door, 400, "events[0].body.until"),
                (
                    .linePaused(reason: "x", until: hour + .seconds(1), by: "door-1"), "door-1", door, 400,
                    "events[0].body.until"
                ),
                (.linePaused(reason: "x", until: now, by: "door-1"), "door-1", door, 400, "events[0].body.until"),
                (.linePaused(reason: "", until: hour, by: "door-1"), "door-1", door, 400, "events[0].body.reason"),
                (.lineResumed(by: "door-2"), "door-1", door, 403, "events[0].body.by"),
                (.linePaused(reason: "x", until: hour, by: "printer-1"), "printer-1", printer, 403, "events[0].body"),
            ]
            for (body, device, token, status, field) in refused {
                let (answer, said) = try await push(body, as: device, token: token)
                #expect(answer == status, "\(body): \(answer) \(said)")
                #expect(said["field"] as? String == field, "\(body): \(said)")
            }
            #expect(server.queue(store)?.pauses.latest == nil)
            // Another store's log with this door's credential: refused, and that store is not paused.
            let other = try await server.registerStore(["name": "Other Market"], manager: "other")
            let (elsewhere, _) = try await push(
                .linePaused(reason: "x", until: hour, by: "door-1"),
                as: "door-1",
                token: door,
                into: other
            )
            #expect((400..<500).contains(elsewhere) && server.queue(other)?.pauses.latest == nil)

            let (paused, _) = try await push(
                .linePaused(reason: "spill", until: hour, by: "door-1"),
                as: "door-1",
                token: door
            )
            #expect(paused == 200 && server.queue(store)?.isPaused(at: now + .seconds(60)) == true)
            let (resumed, _) = try await push(.lineResumed(by: "door-1"), as: "door-1", token: door)
            #expect(resumed == 200 && server.queue(store)?.isPaused(at: now + .seconds(60)) == false)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The console's pause forms: the manager's session and the page's CSRF token, in the manager's name; a forged
    /// form and another store's manager change nothing; the page says who paused and offers to resume.
    @Test func theConsolesPauseFormsActForTheStoresOwnManagerOnly() async throws {
        let server = try await ServerRig()
        try await ConsoleRig.run(server) { client in
            let managers = try await ConsoleRig.TwoManagers(client, server, capacity: 30)
            let (store, anna, page) = (managers.store, managers.anna, managers.page)
            #expect(try await managers.refusesForgedAndForeign("/pause", form: "reason=restock"))
            for form in ["reason=+", "reason=x&minutes=0", "reason=x&minutes=abc", "reason=x&minutes=99999999999"] {
                let answer = try await anna.submit(form, to: page + "/pause", from: page)
                #expect(answer.headers["Location"].first?.contains("problem") == true, "\(form): \(answer.headers)")
            }
            #expect(server.queue(store)?.pauses.latest == nil)

            let paused = try await anna.submit("reason=a+spill&minutes=", to: page + "/pause", from: page)
            #expect(paused.status == 303 && server.queue(store)?.pauses.latest?.until == nil, "until resumed")
            let shown = try await anna.get(try #require(paused.headers["Location"].first))
            #expect(shown.body.contains("Calls paused.") && shown.body.contains("Calls paused by anna: a spill"))
            #expect(
                !shown.body.contains("id=\"resume-form\" hidden")
                    && shown.body.contains("id=\"pause-controls\" hidden")
            )
            let resumed = try await anna.submit("", to: page + "/resume", from: page)
            #expect(resumed.status == 303 && server.queue(store)?.isPaused(at: Self.now()) == false)
            let figures = try await anna.get(page)
            #expect(figures.body.contains("id=\"pauses\">1<") && figures.body.contains("id=\"resume-form\" hidden"))
            #expect(!figures.body.contains("id=\"pause-controls\" hidden"))
        }
    }

    /// A kiosk of sync protocol 1 would stop pulling at a pause: while the server serves it, none is written.
    @Test func aStoreWithAKioskThatWouldFreezeIsNotPaused() async throws {
        let server = try await ServerRig(oldestKioskProtocol: 1)
        do {
            let store = try await server.registerStore(manager: "anna")
            let old = try await server.enroll("old-printer", store: store, role: .printer)
            #expect(
                try await server.call("GET", "/v1/stores/\(store.uuidString)/events?after=0", token: old).status == 200
            )
            let answer = try await server.call(
                "POST",
                "/v1/stores/\(store.uuidString)/pause",
                json: ["reason": "restock", "minutes": 10]
            )
            #expect(
                answer.status == 409 && (answer.body["error"] as? String ?? "").contains("old-printer"),
                "\(answer)"
            )
            #expect(server.queue(store)?.pauses.latest == nil)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
