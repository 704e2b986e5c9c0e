import Foundation
import ServiceSupport
import Synchronization
import Testing

@testable import KioskStation

/// The manager page's login (issue 45): sessions that end, and guessing that is bounded.
@Suite struct ManagerSessionsTests {
    final class Time: Sendable {
        let value = Mutex(Duration.zero)
        func advance(_ by: Duration) { value.withLock { $0 += by } }
    }

    static let password = "shift manager 7"
    static let hash = try! PasswordHash(password: password)

    func sessions(_ time: Time, password: PasswordHash? = hash) -> ManagerSessions {
        ManagerSessions(password: password, now: { time.value.withLock { $0 } })
    }

    @Test func aSessionLastsAShiftAndEndsAtLogout() async throws {
        let time = Time()
        let sessions = sessions(time)
        guard case .opened(let token) = await sessions.login(Self.password) else {
            Issue.record("the right password did not open a session")
            return
        }
        #expect(sessions.isOpen(token) && !sessions.isOpen("forged") && !sessions.isOpen(nil))
        time.advance(ManagerSessions.lifetime - .seconds(1))
        #expect(sessions.isOpen(token))
        time.advance(.seconds(1))
        #expect(!sessions.isOpen(token))
        guard case .opened(let second) = await sessions.login(Self.password) else {
            Issue.record("no second session")
            return
        }
        sessions.close(second)
        #expect(!sessions.isOpen(second))
    }

    @Test func fiveWrongPasswordsInAMinuteHoldEveryLoginTillTheFirstIsAMinuteOld() async {
        let time = Time()
        let sessions = sessions(time)
        for _ in 0..<ManagerSessions.maxFailures {
            #expect(await sessions.login("guess") == .wrong)
            time.advance(.seconds(5))
        }
        // 25 s after the first failure: even the right password waits the other 35 s, unchecked.
        #expect(await sessions.login(Self.password) == .tooMany(retryAfterSeconds: 35))
        time.advance(.seconds(35))
        guard case .opened = await sessions.login(Self.password) else {
            Issue.record("the login stayed closed after the minute")
            return
        }
    }

    @Test func theOldestSessionGoesWhenTooManyAreOpen() async {
        let time = Time()
        let sessions = sessions(time)
        var tokens: [String] = []
        for _ in 0...ManagerSessions.maxSessions {
            if case .opened(let token) = await sessions.login(Self.password) { tokens.append(token) }
            time.advance(.seconds(1))
        }
        #expect(tokens.count == ManagerSessions.maxSessions + 1)
        #expect(!sessions.isOpen(tokens[0]) && tokens.dropFirst().allSatisfy { sessions.isOpen($0) })
    }

    @Test func withoutAPasswordNobodyLogsIn() async {
        #expect(await sessions(Time(), password: nil).login("anything") == .noPassword)
    }
}
