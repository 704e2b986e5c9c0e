import Foundation
import Glibc
import Synchronization

/// A loopback TCP proxy in front of clup-server that can kill the client at the worst moment for sync:
/// when the server's answer to an event push arrives (the events are committed on the server) and before
/// the client has read it (so it never records their sequences and must push them again).
///
/// Blocking sockets on threads of their own, never on the cooperative pool.
final class TCPProxy: Sendable {
    let port: Int
    private let upstream: Int
    private let listener: CInt
    /// The process to kill on a push answer, and the chance of doing it (0…1).
    private let victim = Mutex<(pid: pid_t, chance: Double)?>(nil)
    /// How many push answers the proxy held back by killing the client.
    let killsOnAnswer = Mutex(0)
    /// The chance (0…1) that an answer from the server is swallowed and its connection closed instead: what a
    /// flaky uplink, a NAT timeout or a restarting proxy does after the server did the work.
    private let answerLoss = Mutex(0.0)
    /// How many answers were swallowed that way.
    let lostAnswers = Mutex(0)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(upstream: Int) throws {
        self.upstream = upstream
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var yes: CInt = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<CInt>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw Failure(description: "proxy: cannot listen (errno \(errno))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        Thread { [self] in acceptLoop() }.start()
    }

    /// From now on, kill `pid` with SIGKILL at a push answer with probability `chance` (nil: never).
    func killOnPushAnswer(_ pid: pid_t?, chance: Double = 1) {
        victim.withLock { $0 = pid.map { ($0, chance) } }
    }

    /// From now on, lose each answer with probability `chance`, closing its connection.
    func loseAnswers(chance: Double) {
        answerLoss.withLock { $0 = chance }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstream)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(server)
                close(client)
                continue
            }
            let connection = Connection(client: client, server: server)
            Thread { [self] in
                defer { connection.pumpEnded() }
                pump(from: client, to: server) { chunk in
                    let head = String(decoding: chunk.prefix(128), as: UTF8.self)
                    if head.hasPrefix("POST "), head.contains("/events ") { connection.pushing.withLock { $0 = true } }
                    return true
                }
            }.start()
            Thread { [self] in
                defer { connection.pumpEnded() }
                pump(from: server, to: client) { _ in
                    let answersPush = connection.pushing.withLock { pushing in
                        defer { pushing = false }
                        return pushing
                    }
                    if answersPush && killVictim() { return false }
                    guard Double.random(in: 0..<1) < answerLoss.withLock({ $0 }) else { return true }
                    lostAnswers.withLock { $0 += 1 }
                    return false
                }
            }.start()
        }
    }

    /// One proxied connection.
    private final class Connection: Sendable {
        let client: CInt
        let server: CInt
        /// Whether the client's last request was an event push (so the next answer is its answer).
        let pushing = Mutex(false)
        private let running = Mutex(2)

        init(client: CInt, server: CInt) {
            self.client = client
            self.server = server
        }

        /// The second pump to end closes both sockets (not before: a number closed early could be reused).
        func pumpEnded() {
            guard
                running.withLock({ count in
                    count -= 1
                    return count == 0
                })
            else { return }
            close(client)
            close(server)
        }
    }

    /// Kills the victim by its odds; true if it did (the answer is then not forwarded).
    private func killVictim() -> Bool {
        guard let (pid, chance) = victim.withLock({ $0 }), Double.random(in: 0..<1) < chance else { return false }
        kill(pid, SIGKILL)
        killsOnAnswer.withLock { $0 += 1 }
        return true
    }

    /// Copies bytes until either side closes or `forward` says no; then shuts both down.
    private func pump(from source: CInt, to sink: CInt, forward: ([UInt8]) -> Bool) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard n > 0, forward(Array(chunk.prefix(n))) else { break }
            var sent = 0
            while sent < n {
                let m = chunk.withUnsafeBytes { send(sink, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
                guard m > 0 else { break }
                sent += m
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(sink, Int32(SHUT_RDWR))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
