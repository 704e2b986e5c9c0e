import CLupServer
import Foundation
import KioskCore
import SyncWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// Staff's count and people let in without a ticket (``StaffCount``) through the server: a store's manager
/// (API), a door kiosk in its own name, and every hostile form of both — another store's manager or kiosk, a
/// printer's credential, a count that would keep a store shut, values out of range, a kiosk speaking for a
/// manager.
@Suite(.serialized) struct StaffCountTests {
    /// A kiosk of this version: protocol 2 (without the header, a kiosk is of protocol 1, which would freeze).
    static let speaks2 = [SyncProtocol.header: "\(SyncProtocol.current)"]

    static func login(_ server: ServerRig, _ username: String) async throws -> String {
        let login = try await server.call(
            "POST",
            "/v1/login",
            token: nil,
            json: ["username": username, "password": "correct horse battery"]
        )
        return try #require(login.body["token"] as? String, "login: \(login)")
    }

    @Test func aManagerCorrectsTheCountAndLetsPeopleInAndTheDayReportsIt() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["capacity": 20], manager: "anna")
            let other = try await server.registerStore(["name": "Other Market"], manager: "bruno")
            let anna = try await Self.login(server, "anna")
            let bruno = try await Self.login(server, "bruno")
            let base = "/v1/stores/\(store.uuidString)"

            let counted = try await server.call("POST", base + "/count", token: anna, json: ["inside": 17])
            #expect(counted.status == 200, "\(counted)")
            #expect(counted.body["inside"] as? Int == 17 && counted.body["capacity"] as? Int == 20)
            let correction = counted.body["correction"] as? [String: Any]
            #expect(correction?["inside"] as? Int == 17 && correction?["by"] as? String == "anna")
            let letIn = try await server.call(
                "POST",
                base + "/let-in",
                token: anna,
                json: ["people": 2, "reason": "a carer and a child"]
            )
            #expect(letIn.status == 200 && letIn.body["inside"] as? Int == 19, "\(letIn)")
            #expect(server.queue(store)?.inside == 19)

            // Another store's manager, nobody, a kiosk's credential: none of them count here.
            let credential = try await server.enroll("door-1", store: store, role: .door)
            for (token, status) in [(bruno, 403), (nil, 401), (credential, 401)] as [(String?, Int)] {
                let answer = try await server.call("POST", base + "/count", token: token, json: ["inside": 0])
                #expect(answer.status == status, "\(String(describing: token?.prefix(6))): \(answer)")
            }
            // Out of range, the wrong shape, too large a body: named and refused, the count unchanged.
            let bad: [(String, Any, String?)] = [
                ("/count", ["inside": -1], "inside"), ("/count", ["inside": 100_001], "inside"),
                ("/count", ["inside": "17"], nil), ("/count", ["inside": 1e300], nil),
                ("/let-in", ["people": 0, "reason": "x"], "people"),
                ("/let-in", ["people": 21, "reason": "x"], "people"),
                ("/let-in", ["people": 1, "reason": ""], "reason"),
                ("/let-in", ["people": 1, "reason": String(repeating: "x", count: 121)], "reason"),
                ("/let-in", ["people": 1, "reason": String(repeating: "x", count: 5_000)], nil),
            ]
            for (path, body, field) in bad {
                let answer = try await server.call("POST", base + path, token: anna, json: body)
                #expect((400..<500).contains(answer.status), "\(path) \(body): \(answer.status)")
                if let field { #expect(answer.body["field"] as? String == field, "\(path): \(answer.body)") }
            }
            #expect(server.queue(store)?.inside == 19)
            #expect(server.queue(other)?.inside == 0 && server.queue(other)?.correction == nil)

            let report = try await server.call("GET", base + "/report", token: anna)
            #expect(report.body["countCorrections"] as? Int == 1 && report.body["peopleLetIn"] as? Int == 2)
            let (_, csv) = try await server.exchange("GET", base + "/export", token: anna)
            let text = String(decoding: csv, as: UTF8.self)
            #expect(
                text.contains("17 inside, counted by anna") && text.contains("2 let in by anna: a carer and a child")
            )
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aDoorCountsInItsOwnNameAndNoFurther() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["capacity": 10])
            let other = try await server.registerStore(["name": "Other Market"], manager: "other")
            let door = try await server.enroll("door-1", store: store, role: .door)
            let printer = try await server.enroll("printer-1", store: store, role: .printer)
            let path = "/v1/stores/\(store.uuidString)/events"
            let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            let refused: [(StoreEvent.Body, String, StoreID?, String, Int, String)] = [
                (.countCorrected(inside: 3, by: "anna"), "door-1", nil, door, 403, "events[0].body.by"),
                // At most twice the capacity, or 20 more: 30 at a store of 10.
                (.countCorrected(inside: 31, by: "door-1"), "door-1", nil, door, 400, "events[0].body.inside"),
                (.countCorrected(inside: -4, by: "door-1"), "door-1", nil, door, 400, "events[0].body.inside"),
                (.letIn(people: 99, reason: "x", by: "door-1"), "door-1", nil, door, 400, "events[0].body.people"),
                (.letIn(people: 1, reason: "", by: "door-1"), "door-1", nil, door, 400, "events[0].body.reason"),
                (.letIn(people: 1, reason: "x", by: "printer-1"), "printer-1", nil, printer, 403, "events[0].body"),
                // Another store's log with this door's credential: refused, whichever check says so first.
                (.countCorrected(inside: 1, by: "door-1"), "door-1", other, door, 0, ""),
            ]
            for (body, device, target, token, status, field) in refused {
                var answer: (status: Int, body: [String: Any])
                if let target {
                    // Another store's log, with this door's credential.
                    let event = StoreEvent(id: .v7(at: now), store: target, device: device, time: now, body: body)
                    answer = try await server.call(
                        "POST",
                        "/v1/stores/\(target.uuidString)/events",
                        token: token,
                        raw: try JSONEncoder().encode(["events": [event]]),
                        headers: Self.speaks2
                    )
                } else {
                    let event = StoreEvent(id: .v7(at: now), store: store, device: device, time: now, body: body)
                    answer = try await server.call(
                        "POST",
                        path,
                        token: token,
                        raw: try JSONEncoder().encode(["events": [event]]),
                        headers: Self.speaks2
                    )
                }
                #expect(
                    status == 0 ? (400..<500).contains(answer.status) : answer.status == status,
                    "\(body): \(answer)"
                )
                if !field.isEmpty { #expect(answer.body["field"] as? String == field, "\(body): \(answer.body)") }
            }
            #expect(server.queue(store)?.inside == 0 && server.queue(other)?.inside == 0)

            for body: StoreEvent.Body in [
                .countCorrected(inside: 12, by: "door-1"), .letIn(people: 2, reason: "delivery", by: "door-1"),
            ] {
                let event = StoreEvent(id: .v7(at: now), store: store, device: "door-1", time: now, body: body)
                let answer = try await server.call(
                    "POST",
                    path,
                    token: door,
                    raw: try JSONEncoder().encode(["events": [event]]),
                    headers: Self.speaks2
                )
                #expect(answer.status == 200, "\(body): \(answer)")
            }
            #expect(server.queue(store)?.inside == 14 && server.queue(store)?.correction?.by == "door-1")
            // The door's exits go on from its count.
            let exit = StoreEvent(
                id: .v7(at: now + .seconds(1)),
                store: store,
                device: "door-1",
                time: now + .seconds(1),
                body: .customerExited
            )
            #expect(
                try await server.call(
                    "POST",
                    path,
                    token: door,
                    raw: try JSONEncoder().encode(["events": [exit]]),
                    headers: Self.speaks2
                ).status == 200
            )
            #expect(server.queue(store)?.inside == 13)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The console's count forms: the manager's session and the page's CSRF token, in the manager's name; a
    /// forged form, another store's manager and bad values change nothing; three corrections in a day get the
    /// page's word about the exit's sensors.
    @Test func theConsolesCountFormsActForTheStoresOwnManagerOnly() async throws {
        let server = try await ServerRig()
        try await ConsoleRig.run(server) { client in
            let managers = try await ConsoleRig.TwoManagers(client, server, capacity: 30)
            let (store, anna, page) = (managers.store, managers.anna, managers.page)

            let set = try await anna.submit("inside=12", to: page + "/count", from: page)
            #expect(
                set.status == 303 && set.headers["Location"].first?.contains("counted=12") == true,
                "\(set.headers)"
            )
            #expect(server.queue(store)?.inside == 12 && server.queue(store)?.correction?.by == "anna")
            let shown = try await anna.get(try #require(set.headers["Location"].first))
            #expect(shown.body.contains("Count set: 12 inside.") && shown.body.contains("by anna"))

            let letIn = try await anna.submit("people=2&reason=a+delivery", to: page + "/let-in", from: page)
            #expect(letIn.status == 303 && server.queue(store)?.inside == 14)

            // A form without the page's token, another store's manager, bad values: nothing changes.
            #expect(try await managers.refusesForgedAndForeign("/count", form: "inside=0"))
            for form in ["inside=-1", "inside=abc", "inside=99999999999", "people=0&reason=x", "people=1&reason=+"] {
                let path = form.hasPrefix("inside") ? "/count" : "/let-in"
                let answer = try await anna.submit(form, to: page + path, from: page)
                #expect(answer.headers["Location"].first?.contains("problem") == true, "\(form): \(answer.headers)")
            }
            #expect(server.queue(store)?.inside == 14)

            for inside in [10, 9] { _ = try await anna.submit("inside=\(inside)", to: page + "/count", from: page) }
            let figures = try await anna.get(page)
            #expect(figures.body.contains("id=\"corrections\">3<") && figures.body.contains("id=\"people-let-in\">2<"))
            #expect(figures.body.contains("corrected 3 times this day: check the exit beams"))
        }
    }

    /// A kiosk of sync protocol 1 stops pulling at an event type it does not know: while the server still serves
    /// it, neither a manager nor a door writes a staff event to its store (409 naming it and both ways out);
    /// another store is not held back, and a server that serves protocol 2 and newer writes it.
    @Test func aStoreWithAKioskThatWouldFreezeGetsNoStaffEvents() async throws {
        for oldest in [1, 2] {
            let server = try await ServerRig(oldestKioskProtocol: oldest)
            do {
                let store = try await server.registerStore(manager: "anna")
                let other = try await server.registerStore(["name": "Other Market"], manager: "bruno")
                let old = try await server.enroll("old-printer", store: store, role: .printer)
                let door = try await server.enroll("door-1", store: store, role: .door)
                // The old printer pulls without the protocol header (protocol 1), the door with this version's.
                let pull = "/v1/stores/\(store.uuidString)/events?after=0"
                let pulled = try await server.call("GET", pull, token: old)
                #expect(pulled.status == (oldest == 1 ? 200 : 426))
                #expect(try await server.call("GET", pull, token: door, headers: Self.speaks2).status == 200)

                let anna = try await server.call("POST", "/v1/stores/\(store.uuidString)/count", json: ["inside": 3])
                let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
                let event = StoreEvent(
                    id: .v7(at: now),
                    store: store,
                    device: "door-1",
                    time: now,
                    body: .letIn(people: 1, reason: "a carer", by: "door-1")
                )
                let pushed = try await server.call(
                    "POST",
                    "/v1/stores/\(store.uuidString)/events",
                    token: door,
                    raw: try JSONEncoder().encode(["events": [event]]),
                    headers: Self.speaks2
                )
                if oldest == 1 {
                    for answer in [anna, pushed] {
                        #expect(answer.status == 409, "\(answer)")
                        let says = answer.body["error"] as? String ?? ""
                        #expect(says.contains("old-printer") && says.contains("--oldest-kiosk-protocol 2"), "\(says)")
                    }
                    // The door's push names the event, so that the door sets it aside and pushes the rest.
                    #expect(pushed.body["field"] as? String == "events[0].body.type", "\(pushed.body)")
                    #expect(server.queue(store)?.inside == 0)
                } else {
                    #expect(anna.status == 200 && pushed.status == 200)
                    #expect(server.queue(store)?.inside == 4)
                }
                let elsewhere = try await server.call(
                    "POST",
                    "/v1/stores/\(other.uuidString)/count",
                    json: ["inside": 2]
                )
                #expect(elsewhere.status == 200)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }
}
