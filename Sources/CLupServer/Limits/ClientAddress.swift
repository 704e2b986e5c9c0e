import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Who a request comes from, for rate limits and the login throttle: the connection's peer address, or —
/// when the peer is a trusted proxy (`--trusted-proxy` CIDRs, e.g. the load balancer) — the address that
/// proxy saw, the right-most `X-Forwarded-For` entry that is not itself a trusted proxy. Entries further
/// left were written by the client and are never believed.
///
/// IPv6 clients are counted by their /64 (one household or phone gets a whole /64, and rotates within it).
public struct ClientAddress: Sendable {
    public let trustedProxies: [CIDR]

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    public init(trustedProxies: [CIDR] = []) {
        self.trustedProxies = trustedProxies
    }

    func of(_ request: Request, peer: SocketAddress?) -> String {
        of(headers: request.headers, peer: peer)
    }

    /// The client of a request with `headers` that came from `peer`: the peer, or behind a trusted proxy the
    /// right-most `X-Forwarded-For` entry that is not a trusted proxy.
    func of(headers: HTTPFields, peer: SocketAddress?) -> String {
        guard let peerText = peer?.ipAddress else { return "unknown" }
        var address = peerText
        if isTrustedProxy(peerText) {
            let hops = headers[values: Self.forwardedFor]
                .flatMap { $0.split(separator: ",") }
                .map { Self.host(of: $0.trimmingCharacters(in: .whitespaces)) }
            for hop in hops.reversed() {
                guard CIDR.bytes(of: hop) != nil else { break }  // garbage: stop at the last proxy we trust
                address = hop
                if !isTrustedProxy(hop) { break }
            }
        }
        return Self.key(address)
    }

    /// An `X-Forwarded-For` entry without the port some proxies add: `198.51.100.20:4020`, `[2001:db8::1]:4020`.
    static func host(of hop: String) -> String {
        if hop.hasPrefix("["), let end = hop.firstIndex(of: "]") {
            return String(hop[hop.index(after: hop.startIndex)..<end])
        }
        let colons = hop.count { $0 == ":" }
        if colons == 1, let colon = hop.firstIndex(of: ":") { return String(hop[..<colon]) }
        return hop
    }

    func isTrustedProxy(_ address: String) -> Bool {
        guard let bytes = CIDR.bytes(of: address) else { return false }
        return trustedProxies.contains { $0.contains(bytes) }
    }

    /// The group an address belongs to, for the connections one site may hold: IPv6 by its /48 (a site's
    /// usual allocation: its /64s count apart as clients, not as separate sites); nil for IPv4 (one address is
    /// often a whole carrier's NAT, never a group of its own).
    static func groupKey(_ address: String) -> String? {
        guard let bytes = CIDR.bytes(of: address), bytes.count == 16, CIDR.unmapped(bytes).count == 16 else {
            return nil
        }
        return bytes.prefix(6).map { String(format: "%02x", $0) }.joined() + "::/48"
    }

    /// The rate-limit key of an address: IPv4 as is, IPv6 by its /64.
    static func key(_ address: String) -> String {
        guard let bytes = CIDR.bytes(of: address), bytes.count == 16 else { return address }
        let client = CIDR.unmapped(bytes)
        if client.count == 4 { return client.map(String.init).joined(separator: ".") }
        return bytes.prefix(8).map { String(format: "%02x", $0) }.joined() + "::/64"
    }
}

/// An address range, `192.0.2.0/24` or `2001:db8::/32` (a plain address is a /32 or /128).
public struct CIDR: Sendable, Equatable, CustomStringConvertible {
    public let network: [UInt8]
    public let prefixLength: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let length, (0...bytes.count * 8).contains(length) else { return nil }
        network = bytes
        prefixLength = length
        description = "\(parts[0])/\(length)"
    }

    func contains(_ address: [UInt8]) -> Bool {
        let address = network.count == 4 ? Self.unmapped(address) : address
        guard address.count == network.count else { return false }
        var bits = prefixLength
        for (a, n) in zip(address, network) where bits > 0 {
            let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if a & mask != n & mask { return false }
            bits -= 8
        }
        return true
    }

    /// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its 4 IPv4 bytes; any other address as it is.
    static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count == 16, bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] else { return bytes }
        return Array(bytes.suffix(4))
    }

    /// The address's bytes (4 for IPv4, 16 for IPv6), or nil if it is not an address.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
