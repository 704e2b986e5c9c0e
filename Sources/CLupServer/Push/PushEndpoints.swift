import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the server lets a browser's push subscription make it send (issue 49, SSRF): the server POSTs to a
/// URL a client gave it, so only `https` URLs of the push services in the configuration (the browsers' own by
/// default) are taken, and a message goes out only to an address none of whose DNS answers is private,
/// loopback, link-local, shared, multicast or reserved — the address checked is the one connected to (the
/// request is pinned to it; TLS still checks the host's name), and the sender follows no redirect.
struct PushEndpoints: Sendable {
    /// Host names a subscription's endpoint may have: exact, or `*.example.com` for any name under it.
    var hosts: [String] = Self.browsers
    /// Tests only (``PushOptions/testLoopbackCA``): a push service at an `https://127.0.0.1:<port>` URL.
    var allowLoopback = false

    /// The push services of Chrome and Edge (FCM), Firefox (Mozilla's autopush), Windows and Safari (Apple).
    static let browsers = [
        "fcm.googleapis.com", "updates.push.services.mozilla.com", "*.notify.windows.com", "web.push.apple.com",
        "*.push.apple.com",
    ]
    static let maxEndpointBytes = 1024

    /// A checked endpoint: the URL, and what the request is pinned and signed for.
    struct Target: Sendable, Equatable {
        var url: String
        var host: String
        /// `https://host[:port]`: the VAPID token's audience.
        var origin: String
    }

    /// `endpoint` as a target, or why it is refused.
    func target(_ endpoint: String) throws(Refusal) -> Target {
        func refuse(_ why: String) -> Refusal {
            Refusal.invalid("endpoint: \(why) — subscribe again in a browser with Web Push", field: "endpoint")
        }
        guard endpoint.utf8.count <= Self.maxEndpointBytes else { throw refuse("longer than 1,024 bytes") }
        guard let parts = URLComponents(string: endpoint), parts.scheme?.lowercased() == "https" else {
            throw refuse("not an https URL")
        }
        guard parts.user == nil, parts.password == nil, parts.fragment == nil, let host = parts.host?.lowercased(),
            !host.isEmpty
        else { throw refuse("an https URL without user, password or fragment") }
        let port = parts.port
        if allowLoopback, host == "127.0.0.1", let port {
            return Target(url: endpoint, host: host, origin: "https://\(host):\(port)")
        }
        guard Self.isName(host), hosts.contains(where: { Self.host(host, matches: $0) }) else {
            throw refuse("\(host.prefix(80)) is not a push service this server sends to")
        }
        guard port == nil || port == 443 else { throw refuse("a push service listens on port 443") }
        return Target(url: endpoint, host: host, origin: "https://\(host)")
    }

    /// A DNS name (letters, digits, hyphens, dots; not an address literal).
    static func isName(_ host: String) -> Bool {
        host.utf8.count <= 253 && host.contains { $0.isLetter }
            && host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
                (1...63).contains(label.utf8.count)
                    && label.utf8.allSatisfy { $0 == 0x2D || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
            }
    }

    static func host(_ host: String, matches pattern: String) -> Bool {
        let pattern = pattern.lowercased()
        if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) && host.count > pattern.count - 1 }
        return host == pattern
    }

    /// The address to connect to for `target`: its host's first DNS answer, if no answer is forbidden.
    func address(of target: Target) async throws(Refusal) -> String {
        let answers = await Self.resolve(target.host)
        guard !answers.isEmpty else {
            throw Refusal(.unavailable, "push service \(target.host): no address", retryAfter: 60)
        }
        for answer in answers {
            guard let bytes = CIDR.bytes(of: answer) else { throw Refusal(.invalid, "push service: bad address") }
            let loopback = allowLoopback && target.host == "127.0.0.1" && answer == "127.0.0.1"
            if !loopback, Self.forbidden.contains(where: { $0.contains(bytes) }) {
                throw Refusal(.forbidden, "push service \(target.host) resolves to \(answer), not a public address")
            }
        }
        return answers[0]
    }

    /// Addresses no push service has: this host, its networks, and every range not routed on the internet.
    static let forbidden: [CIDR] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "::/127", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48",
        "100::/64", "2001::/32", "2001:db8::/32", "2002::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    ].map { CIDR($0)! }

    /// The host's addresses as getaddrinfo(3) gives them (numeric text), off the event loops.
    static func resolve(_ host: String) async -> [String] {
        await Task.detached {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, "443", &hints, &list) == 0, let first = list else { return [] }
            defer { freeaddrinfo(first) }
            var found: [String] = []
            var next: UnsafeMutablePointer<addrinfo>? = first
            while let entry = next {
                var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                if getnameinfo(
                    entry.pointee.ai_addr,
                    entry.pointee.ai_addrlen,
                    &text,
                    socklen_t(text.count),
                    nil,
                    0,
                    NI_NUMERICHOST
                ) == 0 {
                    let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if !found.contains(address) { found.append(address) }
                }
                next = entry.pointee.ai_next
            }
            return found
        }.value
    }
}
