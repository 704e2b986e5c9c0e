import Foundation
import KioskCore
import Testing

@testable import CLupServer

/// Web Push's rules alone: which addresses a push may never reach (SSRF, checked after DNS), which endpoints a
/// subscription may name, and which notice a holder is due — each once, the subscription ending with the ticket.
@Suite struct PushRulesTests {
    @Test func noAddressOfThisHostOrItsNetworksIsEverPushedTo() async throws {
        let forbidden = [
            "127.0.0.1", "10.1.2.3", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
            "224.0.0.1", "255.255.255.255", "198.18.0.1", "::1", "::", "fe80::1", "fd00::1", "fc00::1",
            "::ffff:10.0.0.1", "::ffff:127.0.0.1", "64:ff9b::a00:1", "2002:a00:1::1", "2001:0:4136:e378::1", "ff02::1",
        ]
        for address in forbidden {
            let bytes = try #require(CIDR.bytes(of: address), "\(address)")
            #expect(PushEndpoints.forbidden.contains { $0.contains(bytes) }, "\(address)")
        }
        for address in ["142.250.180.10", "17.57.146.20", "2a00:1450:4002:80b::200a", "2620:149:a44::10"] {
            let bytes = try #require(CIDR.bytes(of: address), "\(address)")
            #expect(!PushEndpoints.forbidden.contains { $0.contains(bytes) }, "\(address)")
        }
        // A name allowed by the configuration that resolves to this host is refused after DNS.
        let endpoints = PushEndpoints(hosts: ["localhost"])
        let target = try endpoints.target("https://localhost/push/1")
        await #expect(throws: Refusal.self) { _ = try await endpoints.address(of: target) }
        // Without the test setting, the loopback push service is refused before DNS.
        #expect(throws: Refusal.self) { _ = try PushEndpoints().target("https://127.0.0.1:8443/push/1") }
        #expect(throws: Refusal.self) { _ = try PushEndpoints().target("https://Fcm.googleapis.com.local/x") }
        #expect(
            try PushEndpoints().target("https://FCM.googleapis.com/fcm/send/x").origin == "https://fcm.googleapis.com"
        )
        #expect(
            try PushEndpoints().target("https://db5p.notify.windows.com/w/?token=x").host == "db5p.notify.windows.com"
        )
        #expect(throws: Refusal.self) { _ = try PushEndpoints().target("https://notify.windows.com/x") }
    }

    func status(_ stage: String, call: Int? = nil, endsAt: Int64? = nil, leaveNow: Bool? = nil) -> TicketStatus {
        var status = TicketStatus(
            ticket: .init(id: UUID(), code: "V007", kind: "app", issuedAt: 0),
            stage: stage
        )
        status.call = call
        status.callEndsAt = endsAt
        status.leaveNow = leaveNow
        return status
    }

    @Test func eachNoticeOnceAndTheSubscriptionEndsWithTheTicket() {
        let now = Timestamp(milliseconds: 1_000_000)
        // Waiting: nothing until it is time to leave (only with a journey), then once.
        #expect(PushNotices.next(status("waiting"), sent: [], at: now) == .init(notice: nil, forget: false))
        #expect(PushNotices.next(status("waiting", leaveNow: false), sent: [], at: now).notice == nil)
        #expect(PushNotices.next(status("waiting", leaveNow: true), sent: [], at: now).notice == .leave)
        #expect(PushNotices.next(status("waiting", leaveNow: true), sent: ["leave"], at: now).notice == nil)
        // Called: the call, then 3 minutes before its end the reminder; a second call is told again.
        let ends = now.milliseconds + 8 * 60_000
        var sent: [String] = []
        let first = PushNotices.next(status("called", call: 1, endsAt: ends), sent: sent, at: now)
        #expect(first.notice == .called(call: 1, endsAt: ends))
        sent.append("called-1")
        #expect(PushNotices.next(status("called", call: 1, endsAt: ends), sent: sent, at: now).notice == nil)
        let late = now + .seconds(5 * 60)
        #expect(
            PushNotices.next(status("called", call: 1, endsAt: ends), sent: sent, at: late).notice
                == .ending(call: 1, endsAt: ends)
        )
        sent.append("ending-1")
        #expect(PushNotices.next(status("called", call: 1, endsAt: ends), sent: sent, at: late).notice == nil)
        #expect(
            PushNotices.next(status("called", call: 2, endsAt: ends), sent: sent, at: late).notice
                == .called(call: 2, endsAt: ends)
        )
        // Over: told once and forgotten; used, or gone from the server: forgotten without a word.
        #expect(
            PushNotices.next(status("expired"), sent: sent, at: now)
                == .init(notice: .ended(stage: "expired"), forget: true)
        )
        #expect(PushNotices.next(status("cancelled"), sent: ["ended"], at: now) == .init(notice: nil, forget: true))
        #expect(PushNotices.next(status("admitted"), sent: [], at: now) == .init(notice: nil, forget: true))
        #expect(PushNotices.next(nil, sent: [], at: now) == .init(notice: nil, forget: true))
    }
}
