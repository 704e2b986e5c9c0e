import CLupServer
import Foundation
import Glibc
import Synchronization

extension FloodBenchmarks {
    /// A flood of ticket requests from `addresses` loopback addresses (127.1.x.y), each on a connection of its
    /// own, back to back: none pays the work (no proof; garbage; one proof solved once and replayed by all; a
    /// fresh challenge sent unsolved). Beside it, one attacker that does pay, at this machine's native speed,
    /// from 50 addresses in turn. Meanwhile shoppers, each from an address of its own, take a ticket as the page
    /// does (the store's challenge, solved, then the POST). Production limits, no trusted proxy.
    ///
    /// Reports the flood's requests, the fakes it got (≤ 1% of the flood is the target), what the paying
    /// attacker got for its CPU, the bits the store asked, and the shoppers' times to a ticket (within 5 s is the
    /// target) with what the same bits take a browser (its script solves ~1.7 M hashes/s in headless Chromium).
    static func manyAddresses(_ addresses: Int, shoppers: Int) async throws {
        let server = try await BenchServer(limits: PublicLimits(), trustProxy: false)
        let store = try server.registerStore(capacity: 50).uuidString
        let port = server.port
        let replayed = try LoopbackHTTP(port: port, from: "127.5.0.1").solvedWork(store: store).proof
        print("\n== A flood from \(addresses) addresses asks for tickets without paying; \(shoppers) shoppers pay")
        let flood = AddressFlood(port: port, store: store, addresses: addresses, replayed: replayed)
        let payer = PayingAttacker(port: port, store: store)
        try await Task.sleep(for: .seconds(1))
        let shopped = try await onThread {
            var times = Samples()
            var bits = Samples()
            var refused: [String] = []
            for s in 0..<shoppers {
                let client = try LoopbackHTTP(port: port, from: "127.4.\(s / 200).\(s % 200 + 1)")
                let start = ContinuousClock.now
                let work = try client.solvedWork(store: store)
                let answer = String(
                    decoding: try client.request(
                        "POST",
                        "/v1/stores/\(store)/tickets",
                        headers: ["Clup-Work": work.proof]
                    ),
                    as: UTF8.self
                )
                guard answer.contains("\"qr\"") else {
                    refused.append(answer)
                    continue
                }
                times.add((ContinuousClock.now - start).microseconds / 1000)
                bits.add(Double(work.bits))
                usleep(200_000)
            }
            return (times: times, bits: bits, refused: refused)
        }
        let paid = payer.stop()
        let f = flood.stop()
        let seconds = f.seconds
        print(
            "flood: \(f.requests) requests in \(fmt(seconds, 1)) s (\(Int(Double(f.requests) / seconds)) /s) from "
                + "\(f.connected) addresses; fakes accepted \(f.accepted) "
                + "(\(fmt(100 * Double(f.accepted) / Double(max(f.requests, 1)), 3))% of the flood; target ≤ 1%)"
        )
        print(
            "paying attacker: \(paid.accepted) tickets for \(fmt(paid.seconds, 1)) s of one core "
                + "(\(fmt(Double(paid.accepted) / paid.seconds, 1)) a second; \(fmt(paid.hashRate / 1e6, 2)) M hashes/s); "
                + "with the flood: \(fmt(100 * Double(f.accepted + paid.accepted) / Double(max(f.requests + paid.asked, 1)), 3))% "
                + "of all requests"
        )
        let browser = pow(2, shopped.bits.percentile(50)) / 1.7e6
        print(
            "shoppers: \(shopped.times.count) of \(shoppers) took a ticket, \(shopped.refused.count) refused"
                + (shopped.refused.first.map { " (first: \($0.prefix(120)))" } ?? "")
                + "; bits asked p50 \(Int(shopped.bits.p50)), max \(Int(shopped.bits.percentile(100)))"
        )
        print(
            "time to a ticket (native solver): p50 \(fmt(shopped.times.p50 / 1000, 2)) s, p99 "
                + "\(fmt(shopped.times.p99 / 1000, 2)) s, max \(fmt(shopped.times.percentile(100) / 1000, 2)) s "
                + "(target ≤ 5 s); a browser's solve at the p50 bits: ~\(fmt(browser, 2)) s on average, "
                + "\(fmt(browser * 4.6, 2)) s for 1 in 100"
        )
        await server.stop()
    }

    /// The flood: a thread per address, each on its own keep-alive connection (reconnecting when the server
    /// closes it), sending ticket requests back to back that do not pay.
    final class AddressFlood: @unchecked Sendable {
        private let running = Atomic(true)
        private let counts = Mutex((requests: 0, accepted: 0, connected: 0))
        private let started = ContinuousClock.now
        private let done = DispatchGroup()

        init(port: Int, store: String, addresses: Int, replayed: String) {
            for a in 0..<addresses {
                done.enter()
                let thread = Thread { [self] in
                    defer { done.leave() }
                    let address = "127.1.\(a / 250).\(a % 250 + 1)"
                    var client = try? LoopbackHTTP(port: port, from: address)
                    if client != nil { counts.withLock { $0.connected += 1 } }
                    var i = a
                    while running.load(ordering: .relaxed), let connection = client {
                        var headers: [String: String] = [:]
                        switch i % 4 {
                        case 0: break
                        case 1: headers["Clup-Work"] = "1764000000.14.AAAAAAAAAAA.AAAAAAAAAAAAAAAA.\(i)"
                        case 2: headers["Clup-Work"] = replayed
                        default:
                            let answer = (try? connection.request("GET", "/v1/stores/\(store)/work")) ?? []
                            let object = try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any]
                            headers["Clup-Work"] = (object?["challenge"] as? String ?? "x") + ".0"
                        }
                        i += 1
                        guard
                            let answer = try? connection.request(
                                "POST",
                                "/v1/stores/\(store)/tickets",
                                headers: headers
                            )
                        else {
                            client = try? LoopbackHTTP(port: port, from: address)
                            continue
                        }
                        let accepted = String(decoding: answer, as: UTF8.self).contains("\"qr\"")
                        counts.withLock {
                            $0.requests += 1
                            if accepted { $0.accepted += 1 }
                        }
                    }
                }
                thread.stackSize = 128 << 10
                thread.start()
            }
        }

        func stop() -> (requests: Int, accepted: Int, connected: Int, seconds: Double) {
            let seconds = (ContinuousClock.now - started).microseconds / 1e6
            running.store(false, ordering: .relaxed)
            done.wait()
            let c = counts.withLock { $0 }
            return (c.requests, c.accepted, c.connected, seconds)
        }
    }

    /// An attacker who pays: one thread solving the store's challenges at native speed, each ticket from the
    /// next of 50 addresses (127.6.0.x) without a holder token.
    final class PayingAttacker: @unchecked Sendable {
        private let running = Atomic(true)
        private let counts = Mutex((asked: 0, accepted: 0, hashes: 0.0))
        private let started = ContinuousClock.now
        private let done = DispatchGroup()

        init(port: Int, store: String) {
            done.enter()
            Thread { [self] in
                defer { done.leave() }
                var n = 0
                while running.load(ordering: .relaxed) {
                    n += 1
                    guard let client = try? LoopbackHTTP(port: port, from: "127.6.0.\(n % 50 + 1)"),
                        let work = try? client.solvedWork(store: store),
                        let answer = try? client.request(
                            "POST",
                            "/v1/stores/\(store)/tickets",
                            headers: ["Clup-Work": work.proof]
                        )
                    else { continue }
                    let accepted = String(decoding: answer, as: UTF8.self).contains("\"qr\"")
                    counts.withLock {
                        $0.asked += 1
                        $0.hashes += Double(work.tries)
                        if accepted { $0.accepted += 1 }
                    }
                }
            }.start()
        }

        func stop() -> (asked: Int, accepted: Int, seconds: Double, hashRate: Double) {
            let seconds = (ContinuousClock.now - started).microseconds / 1e6
            running.store(false, ordering: .relaxed)
            done.wait()
            let c = counts.withLock { $0 }
            return (c.asked, c.accepted, seconds, c.hashes / seconds)
        }
    }
}

extension LoopbackHTTP {
    /// What a shopper's page does before it asks for a ticket: the store's challenge, solved. The proof, the bits
    /// asked and the nonces tried.
    func solvedWork(store: String) throws -> (proof: String, bits: Int, tries: Int) {
        let answer = try request("GET", "/v1/stores/\(store)/work")
        guard let object = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any],
            let challenge = object["challenge"] as? String, let bits = object["bits"] as? Int
        else { throw BenchError("no challenge: \(String(decoding: answer, as: UTF8.self))") }
        let proof = WorkProof.solve(challenge: challenge, bits: bits)
        return (proof, bits, (Int(proof.split(separator: ".").last ?? "0") ?? 0) + 1)
    }
}
