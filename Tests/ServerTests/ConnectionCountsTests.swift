import NIOCore
import NIOEmbedded
import Testing

@testable import CLupServer

/// How connections are counted and shed (issue 43): IPv6 clients by their /64 and sites by their /48 (a /56 of
/// one attacker was 256 clients), and from 5 % below the total a new connection closes the longest-idle one,
/// never one that is working.
@Suite struct ConnectionCountsTests {
    static func channel(_ address: String) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        let remote = try SocketAddress(ipAddress: address, port: 40_000)
        try channel.connect(to: remote).wait()
        channel.remoteAddress = remote
        return channel
    }

    @Test func aSitesSlash48HoldsFourClientsWorth() throws {
        var limits = ConnectionLimits()
        limits.perAddress = 4
        let counts = ConnectionCounts(limits: limits, clients: ClientAddress(trustedProxies: []))
        // One /56 cut into 256 /64s: 16 connections for the whole /48, whatever /64 they come from.
        var admitted = 0
        for n in 0..<256 where counts.admit(try Self.channel("2001:db8:1:\(String(n, radix: 16))::1")) != nil {
            admitted += 1
        }
        #expect(admitted == 16)
        #expect(counts.admit(try Self.channel("2001:db8:2::1")) != nil, "another site")
        #expect(counts.admit(try Self.channel("192.0.2.1")) != nil)
        #expect(ClientAddress.groupKey("192.0.2.1") == nil)
        #expect(ClientAddress.groupKey("2001:db8:1:aa::1") == ClientAddress.groupKey("2001:db8:1:bb::9"))
    }

    @Test func theLongestIdleMakesRoomAndWorkingOnesStay() throws {
        var limits = ConnectionLimits()
        limits.total = 20
        limits.perAddress = 20
        let counts = ConnectionCounts(limits: limits, clients: ClientAddress(trustedProxies: []))
        var channels: [EmbeddedChannel] = []
        var ids: [Int] = []
        for n in 0..<19 {
            let channel = try Self.channel("198.51.100.\(n + 1)")
            channels.append(channel)
            ids.append(try #require(counts.admit(channel)))
        }
        // All but the first two are working (a request, a long-poll); the second went idle before the first.
        for id in ids.dropFirst(2) { counts.busy(id) }
        counts.busy(ids[0])
        counts.idle(ids[0])
        #expect(counts.total == 19)
        // 19 is the shedding line (5 % below 20): the next connection closes the longest idle, ids[1].
        // (A new connection is idle until its first byte: these two send a request at once.)
        counts.busy(try #require(counts.admit(try Self.channel("203.0.113.1"))))
        #expect(!channels[1].isActive && channels[0].isActive)
        counts.busy(try #require(counts.admit(try Self.channel("203.0.113.2"))))
        #expect(!channels[0].isActive)
        // Nothing idle left: the headroom takes one more, then working connections are never shed and the
        // total holds.
        counts.busy(try #require(counts.admit(try Self.channel("203.0.113.3"))))
        #expect(counts.admit(try Self.channel("203.0.113.4")) == nil)
        #expect(channels.dropFirst(2).allSatisfy { $0.isActive })
        #expect(counts.total == limits.total)
    }
}
