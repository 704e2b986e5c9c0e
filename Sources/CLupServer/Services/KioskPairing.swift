import Foundation
import KioskCore
import ServiceSupport
import SyncWire

/// Pairs kiosks by the code they print (RFC 8628, ``PairingGrant``): a box asks for a code, a manager types it in
/// the console and picks the store and role, the box collects its credential — once. Every check is here; one
/// pairing's rules are ``Pairing``'s, and storage keeps the records (so any replica answers any step).
///
/// Bounds against floods and guessing: one client address asks at most 5 codes at once and one a minute after,
/// holds at most ``maxPerAddress`` live codes, and all clients together ``maxLive`` (then 503 until codes
/// expire: the table is bounded, never the disk). A manager who types wrong codes waits as after wrong passwords
/// (``LoginThrottle``, by address and by manager): with 20⁸ codes and at most 1,000 live, one guess in 25
/// million finds one.
struct KioskPairing: Sendable {
    let database: any ServerStorage
    let office: StoreOffice
    let logs: StoreQueues
    let throttle: LoginThrottle
    let asks = RateLimiter(.init(burst: 5, interval: .seconds(60)))

    static let maxLive = 1_000
    static let maxPerAddress = 10

    /// A box asks for a code (`POST /v1/pairing`); `origin` is the server's address as the box reached it.
    func ask(_ request: PairingRequest, from address: String, origin: String) async throws -> PairingGrant {
        guard StoreOffice.isDeviceID(request.device), request.device != ServerIssue.device else {
            throw Refusal.invalid(
                "1 to 64 letters, digits, '.', '_' or '-' starting with a letter or digit (the box's host name)",
                field: "device"
            )
        }
        let now = logs.clock.now()
        let address = ClientAddress.key(address)  // an IPv6 client by its /64
        if let wait = asks.take(address, at: now) {
            throw Refusal(.tooMany, "this address asked for many pairing codes — wait", retryAfter: wait)
        }
        let counts = try await database.pairingCounts(address: address, at: now)
        guard counts.all < Self.maxLive else {
            throw Refusal(
                .unavailable,
                "too many kiosks are pairing now — try again in a minute",
                retryAfter: 60
            )
        }
        guard counts.fromAddress < Self.maxPerAddress else {
            throw Refusal(
                .tooMany,
                "\(Self.maxPerAddress) codes of this address are waiting to be typed — type one, or wait until "
                    + "they expire",
                retryAfter: 60
            )
        }
        let deviceCode = Secrets.token()
        var pairing = Pairing.new(
            deviceCode: deviceCode,
            device: request.device,
            role: request.role,
            address: address,
            at: now
        )
        // A user code another live pairing holds (about once in 25 million): draw again.
        for attempt in 1...3 {
            do {
                try await database.addPairing(pairing, at: now)
                break
            } catch  where attempt < 3 {
                pairing = Pairing.new(
                    deviceCode: deviceCode,
                    device: request.device,
                    role: request.role,
                    address: address,
                    at: now
                )
            } catch {
                throw error
            }
        }
        let page = origin + "/console/pair"
        return PairingGrant(
            deviceCode: deviceCode,
            userCode: Pairing.display(pairing.userCode),
            verificationURI: page,
            verificationURIComplete: page + "?code=" + pairing.userCode,
            expiresIn: Int((pairing.expiresAt - now).wholeMilliseconds / 1000),
            interval: pairing.interval
        )
    }

    /// A box polls (`POST /v1/pairing/token`): a refusal (RFC 8628 §3.5), or — once — its credential.
    func poll(_ poll: PairingPoll) async throws -> Paired {
        let now = logs.clock.now()
        guard poll.deviceCode.utf8.count <= 64,
            let pairing = try await database.pairing(deviceCodeHash: Secrets.hash(poll.deviceCode))
        else { throw Self.refusal(.expiredToken) }
        let (next, answer) = pairing.polled(at: now)
        if next != pairing {
            // Written only from the state read: of two polls of an approved pairing, one delivers.
            guard
                try await database.replacePairing(next, whileIn: pairing.state)
            else { throw Self.refusal(.expiredToken) }
        }
        switch answer {
        case .refuse(let why): throw Self.refusal(why, interval: next.interval)
        case .deliver(let store, let role):
            let enrolled = try await office.enroll(next.device, role: role, store: store)
            let keys = try await logs.deviceKeys(of: store)
            return Paired(enrolled, keys: keys)
        }
    }

    /// The pending pairing a manager typed the code of, to show before deciding; throttled like a password.
    func pending(code typed: String, manager: String, from address: String) async throws -> Pairing {
        let now = logs.clock.now()
        let keys = [LoginThrottle.addressKey(address), "pair:" + LoginThrottle.userKey(manager)]
        let wait = throttle.reserve(keys, at: now)
        guard wait == 0 else {
            throw Refusal(
                .tooMany,
                "many wrong codes were typed — wait \(wait) s and type it again",
                retryAfter: wait
            )
        }
        guard let code = Pairing.normalized(typed),
            let pairing = try await database.pairing(userCode: code),
            pairing.awaitsDecision(at: now)
        else {
            throw Refusal(
                .notFound,
                "no kiosk is waiting with this code — check the code on its ticket, or print a new one (codes "
                    + "last 10 minutes and work once)"
            )
        }
        keys.forEach(throttle.refund)
        return pairing
    }

    /// A manager approves the pairing of `code` for `store` in `role`, or denies it (nil store). The caller has
    /// checked that `manager` may manage `store`.
    func decide(
        code typed: String,
        store: StoreID?,
        role: KioskRole,
        manager: String,
        from address: String
    ) async throws -> Pairing {
        let pairing = try await pending(code: typed, manager: manager, from: address)
        if let store { _ = try await logs.require(store) }
        let next = pairing.decided(store: store, role: role, by: manager)
        guard try await database.replacePairing(next, whileIn: .pending) else {
            throw Refusal(.conflict, "this code was decided a moment ago — look at the kiosk")
        }
        return next
    }

    /// A manager offers a pairing to a door with no printer (``PairingOffer``): the device code its scanner is
    /// to read, valid as long as a printed code. The caller has checked that `manager` may manage `store`.
    func offer(_ device: String, store: StoreID, role: KioskRole, manager: String) async throws -> String {
        guard StoreOffice.isDeviceID(device), device != ServerIssue.device else {
            throw Refusal.invalid(
                "1 to 64 letters, digits, '.', '_' or '-' starting with a letter or digit (the door's host name)",
                field: "device"
            )
        }
        _ = try await logs.require(store)
        let now = logs.clock.now()
        let address = Pairing.offerAddress(manager)
        let counts = try await database.pairingCounts(address: address, at: now)
        guard counts.fromAddress < Self.maxPerAddress, counts.all < Self.maxLive else {
            throw Refusal(
                .tooMany,
                "many pairing codes are waiting — use one, or wait until they expire",
                retryAfter: 60
            )
        }
        let deviceCode = Secrets.token()
        let pairing = Pairing.offered(
            deviceCode: deviceCode,
            device: device,
            store: store,
            role: role,
            by: manager,
            at: now
        )
        try await database.addPairing(pairing, at: now)
        return deviceCode
    }

    /// A 400 with RFC 8628's error code in `reason`, what to do in `error`.
    static func refusal(_ why: PairingRefusal, interval: Int? = nil) -> Refusal {
        let message =
            switch why {
            case .authorizationPending: "nobody has typed this code yet — poll again in \(interval ?? 5) s"
            case .slowDown: "polled too soon — wait \(interval ?? 10) s between polls"
            case .expiredToken: "this code expired, was used, or was never given — ask for a new one"
            case .accessDenied: "a manager refused this kiosk — ask them, then ask for a new code"
            }
        var error = Refusal(.invalid, message, field: "deviceCode")
        error.reason = why.rawValue
        return error
    }
}
