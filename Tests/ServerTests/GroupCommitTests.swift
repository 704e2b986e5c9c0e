import Foundation
import GRDB
import KioskCore
import Synchronization
import Testing

@testable import CLupServer
@testable import Rigs

/// Group commit (a rush of app tickets shares transactions): fewer commits than writes, each write's
/// outcome its own, and a rush of tickets numbered and sequenced exactly as one at a time would be.
@Suite(.serialized) struct GroupCommitTests {
    /// Counts commits on the database it watches.
    final class Commits: TransactionObserver, @unchecked Sendable {
        let count = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    @Test func writesShareCommitsAndFailAlone() async throws {
        let directory = HIL.temporaryDirectory("group-commit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pool = try DatabasePool(path: "\(directory)/db.sqlite")
        try await pool.write { db in try db.execute(sql: "CREATE TABLE rows (n INTEGER PRIMARY KEY)") }
        let commits = Commits()
        try await pool.writeWithoutTransaction { db in db.add(transactionObserver: commits, extent: .databaseLifetime) }
        struct Refused: Error { let n: Int }

        let group = GroupCommit(pool: pool)
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { tasks in
            for n in 1...200 {
                tasks.addTask {
                    do {
                        let written = try await group.write { db in
                            try db.execute(sql: "INSERT INTO rows (n) VALUES (?)", arguments: [n])
                            // Every 7th write fails after writing: its row must go, the others' must stay.
                            if n % 7 == 0 { throw Refused(n: n) }
                            return n
                        }
                        return (written, true)
                    } catch let error as Refused {
                        return (error.n, false)
                    } catch {
                        return (-n, false)
                    }
                }
            }
            var outcomes: [Int: Bool] = [:]
            for await (n, ok) in tasks { outcomes[n] = ok }
            return outcomes
        }
        let rows = try await pool.read { db in try Int.fetchAll(db, sql: "SELECT n FROM rows ORDER BY n") }
        let expected = (1...200).filter { $0 % 7 != 0 }
        #expect(rows == expected)
        #expect(outcomes.count == 200)
        #expect(outcomes.filter(\.value).keys.sorted() == expected)
        // 200 writes arriving together do not make 200 commits.
        let made = commits.count.withLock { $0 }
        #expect(made >= 1 && made < 100, "\(made) commits for 200 writes")
    }

    @Test func aRushOfAppTicketsIsNumberedAndSequencedInOrder() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore()
            let codes = try await withThrowingTaskGroup(of: String.self) { tasks in
                for _ in 0..<150 {
                    tasks.addTask {
                        let answer = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
                        let ticket = answer.body["ticket"] as? [String: Any]
                        return answer.status == 201 ? (ticket?["code"] as? String ?? "?") : "HTTP \(answer.status)"
                    }
                }
                var codes: [String] = []
                for try await code in tasks { codes.append(code) }
                return codes
            }
            #expect(codes.sorted() == (1...150).map { String(format: "V%03d", $0) })
            // The log: sequences without a gap, issue numbers rising with the sequence. Besides the 150 tickets
            // it may hold the day's start, which the server writes for a new store within a second.
            let log = try await server.app.database.events(store: store, after: 0)
            #expect(log.map(\.sequence) == (1...log.count).map { Int64($0) })
            #expect(log.filter { $0.kind != "ticketIssued" }.allSatisfy { $0.kind == "dayStarted" } && log.count <= 151)
            let numbers = log.compactMap { event -> Int? in
                if case .ticketIssued(let ticket, _) = event.body { return ticket.code.number }
                return nil
            }
            #expect(numbers == Array(1...150))
            // The state in memory is the fold of what was committed.
            #expect(
                server.queue(store) == QueueState(capacity: ServerRig.storeProfile["capacity"] as! Int, events: log)
            )
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
