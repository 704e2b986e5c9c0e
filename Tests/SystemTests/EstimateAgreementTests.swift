import Foundation
import KioskCore
import Testing

@testable import CLupServer
@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Paper and app tell the same wait for the same place in line: a kiosk synced with clup-server takes the model
/// the server learnt from the store's log (visits of 10 minutes where the manager configured 20), and its
/// status — what the next printed ticket and the window display say — tells what the server tells a shopper
/// taking an app ticket now.
@Suite(.serialized) struct EstimateAgreementTests {
    @Test func paperAndAppTellTheSameWait() async throws {
        let server = try await ServerRig()
        let store = try await server.registerStore(["capacity": 2, "averageVisitMinutes": 20])
        let credential = try await server.enroll("entrance", store: store)
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        // 300 visits of 10 minutes over the last days, then two people who came in a minute ago: the store is
        // full, and the next ticket waits for one of them to leave.
        var events: [StoreEvent] = []
        func visit(_ number: Int, at time: Timestamp, leaving: Bool) {
            let ticket = Ticket(
                id: .v7(at: time),
                store: store,
                kind: .paper,
                code: TicketCode(prefix: "H", number: number),
                issuedAt: time,
                issuer: "entrance"
            )
            var bodies: [(Int64, StoreEvent.Body)] = [
                (0, .ticketIssued(ticket)), (1, .ticketTaken(ticket.id)),
                (2, .ticketAdmitted(ticket.id, door: "entrance")),
            ]
            if leaving { bodies.append((602, .customerExited)) }
            for (offset, body) in bodies {
                let at = time + .seconds(offset)
                events.append(StoreEvent(id: .v7(at: at), store: store, device: "entrance", time: at, body: body))
            }
        }
        for i in 0..<300 { visit(i + 1, at: now - .seconds(Int64(300 - i) * 900 + 3600), leaving: true) }
        visit(301, at: now - .seconds(60), leaving: false)
        visit(302, at: now - .seconds(50), leaving: false)
        for batch in stride(from: 0, to: events.count, by: 1000) {
            let part = Array(events[batch..<min(batch + 1000, events.count)])
            let answer = try await server.call(
                "POST",
                "/v1/stores/\(store.uuidString)/events",
                token: credential,
                raw: try JSONEncoder().encode(["events": part])
            )
            #expect(answer.status == 200)
        }
        try await server.app.logs.refreshModels(at: server.app.logs.clock.now())
        let model = try #require(server.app.logs.store(store)?.model)
        #expect((9...12).contains(model.visit.meanMinutes), "learnt \(model.visit.meanMinutes) min")

        let kiosk = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(with: server, store: store, device: "entrance", credential: credential, capacity: 2)
            $0.store.averageVisit = .seconds(20 * 60)
        }
        do {
            _ = try await kiosk.requireTickets(1)
            // The kiosk has the server's model and the full store.
            let synced = await kiosk.wait(.seconds(15)) {
                let json = (try? kiosk.kiosk.store.serverWaitModel()) ?? nil
                let kept = json.flatMap { try? JSONDecoder().decode(WaitModel.self, from: Data($0.utf8)) }
                return kept == model && kiosk.kiosk.queue.snapshot.inside == 2
            }
            #expect(synced != nil, "the kiosk did not take the server's model and queue")

            let port = try #require(kiosk.kiosk.httpPort.current)
            let status =
                try JSONSerialization.jsonObject(
                    with: try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/status")!).0
                ) as? [String: Any]
            let queue = try #require(status?["queue"] as? [String: Any])
            let paper = try #require(queue["estimatedWaitMinutes"] as? Int)
            let nearby = try await server.call("GET", "/v1/stores?lat=45.4642&lon=9.19", token: nil)
            let listed = (nearby.body["stores"] as? [[String: Any]])?.first {
                ($0["id"] as? String)?.uppercased() == store.uuidString
            }
            let app = try #require(listed?["estimatedWaitSeconds"] as? Int)
            let appMinutes = (app + 59) / 60
            // The same place, a few milliseconds apart: the same minutes (a grid step of 30 s may fall between).
            #expect(abs(paper - appMinutes) <= 1, "paper \(paper) min, app \(app) s")
            // Not the configured 20-minute visit: two people inside for a minute free a place in about nine.
            let prior = WaitEstimator(model: .prior(averageVisit: .seconds(20 * 60)), callWindow: .seconds(600))
                .wait(position: 0, in: kiosk.kiosk.queue.snapshot, at: now + .seconds(1))
            #expect(paper < prior.point.minutesRoundedUp, "paper \(paper) min, the prior \(prior.point)")
            #expect((3...12).contains(paper), "\(paper) min")
        } catch {
            await kiosk.stop()
            await server.stop()
            throw error
        }
        await kiosk.stop()
        await server.stop()
    }
}
