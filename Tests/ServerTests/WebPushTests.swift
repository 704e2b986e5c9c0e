import CLupServer
import Crypto
import Foundation
import KioskCore
import Testing

@testable import Rigs

/// Web Push end to end (issue 49, point 2), against a push service on loopback written with other code
/// (Scripts/push_service.py: py_vapid checks each VAPID header, http_ece decrypts each message with the
/// subscription's private key): a holder subscribed is told when to leave, when called, three minutes before the
/// call ends, and when the ticket is cancelled — each once — and the subscription goes with the ticket; a push
/// service's 429 is retried, its 410 ends the subscription, its redirect is not followed; only the ticket's holder
/// subscribes, for the ticket's own page, with a browser's keys and an allowed endpoint.
@Suite(.serialized) struct WebPushTests {
    struct Browser {
        let id: String
        let key = P256.KeyAgreement.PrivateKey()
        let auth = Data(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })

        func subscription(port: Int, page: String, journey: Int? = nil) -> [String: Any] {
            var body: [String: Any] = [
                "endpoint": "https://127.0.0.1:\(port)/push/\(id)", "expirationTime": NSNull(),
                "keys": [
                    "p256dh": base64url(key.publicKey.x963Representation), "auth": base64url(auth),
                ],
                "lang": "en", "page": page,
            ]
            if let journey { body["journeyMinutes"] = journey }
            return body
        }

        func base64url(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
    }

    /// What the push service reported of subscription `id`'s messages so far (got, answered, redirected, bad).
    static func messages(_ service: LineProcess, _ id: String) -> [String] {
        service.all.filter { line in
            ["got", "answered", "redirected", "bad"].contains {
                line.hasPrefix("\($0) \(id) ") || line == "\($0) \(id)"
            }
        }
    }

    /// Message `index` (from 0) of `id`, waiting up to 20 s for it.
    static func message(_ service: LineProcess, _ id: String, _ index: Int) async -> String? {
        for _ in 0..<400 {
            let seen = messages(service, id)
            if seen.count > index { return seen[index] }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// A command to the push service, and its answer (its output interleaves with the messages it reports).
    static func tell(_ service: LineProcess, _ command: String) async {
        let words = command.split(separator: " ")
        service.send(command)
        let answer = "ok \(words[0]) \(words[1])"
        for _ in 0..<400 where !service.all.contains(answer) { try? await Task.sleep(for: .milliseconds(50)) }
        #expect(service.all.contains(answer), "\(command)")
    }

    @Test(.enabled(if: PushPayloadTests.ready, "needs http_ece and py_vapid in .venv-test (make test)"))
    func aSubscribedHolderIsToldEachThingOnce() async throws {
        let python = try #require(HIL.python)
        let folder = HIL.temporaryDirectory("push")
        let ca = try TestCA("push", in: folder)
        let (certificate, key) = try ca.issue("push-service", serial: "1F")
        let service = try LineProcess(python, ["\(HIL.packageRoot)/Scripts/push_service.py", certificate, key])
        let ready = try #require(await service.next(timeout: .seconds(30)))
        let port = try #require(Int(ready.split(separator: " ").last ?? ""), "\(ready)")
        var push = PushOptions()
        push.testLoopbackCA = ca.certificate
        let server = try await ServerRig(callWindowMinutes: 3, push: push)
        do {
            let store = try await server.registerStore(["name": "Mercato Centrale", "capacity": 1])
            var tickets: [(id: String, holder: String, page: String)] = []
            for _ in 0..<4 {
                let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil).body
                let qr = try #require(taken["qr"] as? String)
                tickets.append(
                    (
                        try #require((taken["ticket"] as? [String: Any])?["id"] as? String),
                        try #require(taken["holderToken"] as? String),
                        "/T/" + qr.dropFirst("HTTPS://CLUP.EXAMPLE/T/".count)
                    )
                )
            }
            let key = try await server.call("GET", "/v1/push/key", token: nil)
            #expect((key.body["publicKey"] as? String)?.count == 87, "a P-256 point, base64url: \(key.body)")
            func subscribe(
                _ index: Int,
                _ browser: Browser,
                journey: Int? = nil,
                holder: String? = nil
            ) async throws
                -> (status: Int, body: [String: Any])
            {
                try await server.call(
                    "PUT",
                    "/v1/tickets/\(tickets[index].id)/push",
                    token: nil,
                    json: browser.subscription(port: port, page: tickets[index].page, journey: journey),
                    headers: ["Clup-Holder": holder ?? tickets[index].holder]
                )
            }
            func keys(_ browser: Browser) async {
                await Self.tell(
                    service,
                    "key \(browser.id) \(browser.key.rawRepresentation.base64EncodedString()) "
                        + browser.auth.base64EncodedString()
                )
            }

            // The second ticket waits behind the first (called at once): four hours away, it is time to leave.
            let second = Browser(id: "second")
            await keys(second)
            #expect(try await subscribe(1, second, journey: 240).status == 204)
            let leave = try #require(await Self.message(service, "second", 0))
            #expect(leave.hasPrefix("got second 600 high") && leave.contains("Time to leave"), "\(leave)")
            #expect(leave.contains(tickets[1].page), "a tap opens the ticket's page: \(leave)")
            // The first is cancelled: the second is called, then reminded (its 3-minute window ends within 3).
            let cancelled = try await server.call(
                "DELETE",
                "/v1/tickets/\(tickets[0].id)",
                token: nil,
                headers: ["Clup-Holder": tickets[0].holder]
            )
            #expect(cancelled.status == 200)
            let called = try #require(await Self.message(service, "second", 1))
            #expect(called.contains("It is your turn") && called.contains(" high "), "\(called)")
            let ending = try #require(await Self.message(service, "second", 2))
            #expect(ending.contains("Your call ends in 3 minutes"), "\(ending)")
            // Cancelled: told once, and the subscription goes with the ticket.
            #expect(
                try await server.call(
                    "DELETE",
                    "/v1/tickets/\(tickets[1].id)",
                    token: nil,
                    headers: ["Clup-Holder": tickets[1].holder]
                ).status == 200
            )
            let over = try #require(await Self.message(service, "second", 3))
            #expect(over.contains("Your ticket was cancelled") && over.contains(" normal "), "\(over)")
            try await Task.sleep(for: .seconds(1))
            #expect(Self.messages(service, "second").count == 4, "each notice once, none refused: \(service.all)")
            #expect(
                try await server.call(
                    "DELETE",
                    "/v1/tickets/\(tickets[1].id)/push",
                    token: nil,
                    headers: ["Clup-Holder": tickets[1].holder]
                ).status == 404
            )

            // A push service that is busy (429) gets the notice again (the third is called now: the second's
            // cancel moved the line); one that says the subscription is gone (410) ends it; a redirect is not
            // followed.
            let third = Browser(id: "third")
            await keys(third)
            await Self.tell(service, "answer third 429")
            #expect(try await subscribe(2, third).status == 204)
            #expect(await Self.message(service, "third", 0)?.hasPrefix("answered third 429") == true)
            // The reminder may arrive while the call waits for its retry (a second later).
            let retried = [await Self.message(service, "third", 1), await Self.message(service, "third", 2)]
            #expect(retried.contains { $0?.contains("It is your turn") == true }, "\(retried)")
            #expect(retried.contains { $0?.contains("Your call ends in 3 minutes") == true }, "\(retried)")
            let fourth = Browser(id: "fourth")
            await keys(fourth)
            await Self.tell(service, "answer fourth 410")
            #expect(try await subscribe(3, fourth, journey: 240).status == 204)
            #expect(await Self.message(service, "fourth", 0)?.hasPrefix("answered fourth 410") == true)
            try await Task.sleep(for: .seconds(1))
            #expect(
                try await server.call(
                    "DELETE",
                    "/v1/tickets/\(tickets[3].id)/push",
                    token: nil,
                    headers: ["Clup-Holder": tickets[3].holder]
                ).status == 404,
                "410: the subscription is forgotten"
            )
            await Self.tell(service, "redirect third https://169.254.169.254/latest/meta-data")
            #expect(try await subscribe(2, third).status == 204, "subscribed again: the call told again")
            #expect(await Self.message(service, "third", 3)?.hasPrefix("redirected third") == true)
            try await Task.sleep(for: .seconds(2))
            #expect(service.all.filter { $0 == "redirected third" }.count == 2, "each notice once, not followed")

            // A subscription given again and again (each would start the ticket's notices afresh): three at
            // once, then one every 30 s.
            #expect(try await subscribe(2, third).status == 204)
            let again = try await subscribe(2, third)
            #expect(again.status == 429, "\(again)")

            // Only the holder, for the ticket's own page, with a browser's keys and an allowed endpoint.
            let stranger = Browser(id: "stranger")
            var body = stranger.subscription(port: port, page: tickets[2].page)
            for (headers, status) in [
                ([:], 401), (["Clup-Holder": "made.up"], 401), (["Clup-Holder": tickets[3].holder], 403),
            ] {
                let refused = try await server.call(
                    "PUT",
                    "/v1/tickets/\(tickets[2].id)/push",
                    token: nil,
                    json: body,
                    headers: headers
                )
                #expect(refused.status == status, "\(headers): \(refused)")
            }
            func refusedField(_ body: [String: Any]) async throws -> String? {
                let answer = try await server.call(
                    "PUT",
                    "/v1/tickets/\(tickets[2].id)/push",
                    token: nil,
                    json: body,
                    headers: ["Clup-Holder": tickets[2].holder]
                )
                #expect(answer.status == 400, "\(answer)")
                return answer.body["field"] as? String
            }
            body["page"] = tickets[3].page
            #expect(try await refusedField(body) == "page", "another ticket's page")
            body["page"] = tickets[2].page
            for endpoint in [
                "http://127.0.0.1:\(port)/push/x", "https://evil.example/push", "https://localhost/push",
                "https://[::1]/push", "https://169.254.169.254/", "https://user@fcm.googleapis.com/x",
                "https://fcm.googleapis.com:8443/x", "https://fcm.googleapis.com.evil.example/x",
                "https://fcm.googleapis.com/" + String(repeating: "a", count: 1100), "ftp://fcm.googleapis.com/x",
            ] {
                body["endpoint"] = endpoint
                #expect(try await refusedField(body) == "endpoint", "\(endpoint.prefix(60))")
            }
            body["endpoint"] = "https://fcm.googleapis.com/fcm/send/x"
            body["keys"] = ["p256dh": stranger.base64url(Data(count: 65)), "auth": stranger.base64url(Data(count: 16))]
            #expect(try await refusedField(body) == "keys")
            let large = try await server.call(
                "PUT",
                "/v1/tickets/\(tickets[2].id)/push",
                token: nil,
                raw: Data(repeating: 0x20, count: 5000),
                headers: ["Clup-Holder": tickets[2].holder, "Content-Type": "application/json"]
            )
            #expect(large.status == 413)
            #expect(!service.all.contains { $0.contains(" stranger ") }, "nothing sent for a refused subscription")
        } catch {
            service.process.terminate()
            await server.stop()
            throw error
        }
        service.process.terminate()
        await server.stop()
    }
}
