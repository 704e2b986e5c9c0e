import Foundation
import KioskCore
import Logging

/// Web Push for ticket holders (issue 49, point 2): the subscriptions a holder's browser gives for its tickets
/// (one per ticket, kept in storage until the ticket ends), and the duty's turn that sends each holder the
/// notices ``PushNotices`` says are due, through the ``PushSender``. Only the device that took a ticket (its
/// holder token) subscribes for it or ends its subscription, three times at once and then once every 30 s.
struct PushDesk: Sendable {
    let database: any ServerStorage
    let desk: ShopperDesk
    let directory: StoreDirectory
    let endpoints: PushEndpoints
    let sender: PushSender
    let vapid: VAPID
    let logger: Logger
    /// How often a ticket's subscription may be given: each one starts the ticket's notices afresh, so a holder
    /// who gave it again and again would have the server push the same notice to a push service as often.
    let pace = RateLimiter(.init(burst: 3, interval: .seconds(30)))

    /// What a page sends to subscribe (its `PushSubscription.toJSON()`, with the notices' needs).
    struct Subscribing: Decodable, Sendable {
        struct Keys: Decodable, Sendable {
            var p256dh: String
            var auth: String
        }

        var endpoint: String
        var keys: Keys
        var expirationTime: Int64?
        var journeyMinutes: Int?
        var lang: String?
        /// The ticket's page: `/<segment>/<signed code>`.
        var page: String
    }

    /// Keeps `request` as ticket `id`'s subscription (replacing one before), checked: an endpoint of an allowed
    /// push service, a browser's keys, a journey in range, the ticket's own page, a ticket still waiting or
    /// called. `page` is checked by the caller (its code verified as this ticket's).
    func subscribe(_ request: Subscribing, ticket id: TicketID) async throws(Refusal) {
        let target = try endpoints.target(request.endpoint)
        guard let key = HolderTokens.data(base64url: request.keys.p256dh[...]),
            let auth = HolderTokens.data(base64url: request.keys.auth[...]),
            PushPayload.Receiver(publicKey: key, authSecret: auth) != nil
        else {
            throw Refusal.invalid("keys: a browser's p256dh (65 bytes) and auth (16 bytes), base64url", field: "keys")
        }
        if let minutes = request.journeyMinutes, !TicketStatus.journeyMinutes.contains(minutes) {
            throw Refusal.invalid("whole minutes from 1 to 240", field: "journeyMinutes")
        }
        let language = request.lang ?? "en"
        guard PageStrings.languages.contains(language) else {
            throw Refusal.invalid("en or it", field: "lang")
        }
        guard let status = desk.status(of: id), ["waiting", "booked", "called"].contains(status.stage),
            let live = directory.store(containing: id)
        else { throw Refusal(.conflict, "this ticket is over: there is nothing left to tell about it") }
        if let wait = pace.take(id.uuidString, at: directory.clock.now()) {
            throw Refusal(.tooMany, "this ticket's subscription was given just now — try again later", retryAfter: wait)
        }
        let subscription = PushSubscription(
            ticket: id,
            store: live.record.id,
            endpoint: target.url,
            p256dh: key,
            auth: auth,
            journeyMinutes: request.journeyMinutes,
            language: language,
            page: request.page,
            sent: [],
            createdAt: directory.clock.now().milliseconds
        )
        do { try await database.savePush(subscription) } catch {
            logger.error("cannot keep a push subscription", metadata: ["error": "\(error)"])
            throw Refusal.failed
        }
    }

    /// Ends ticket `id`'s subscription; false when it had none.
    func unsubscribe(ticket id: TicketID) async throws(Refusal) -> Bool {
        do { return try await database.removePush(ticket: id) } catch {
            logger.error("cannot forget a push subscription", metadata: ["error": "\(error)"])
            throw Refusal.failed
        }
    }

    /// The duty's turn: each subscription's due notice queued, the subscriptions of tickets that ended forgotten.
    func turn() async throws {
        let now = directory.clock.now()
        for var subscription in try await database.pushSubscriptions() {
            let status = desk.status(of: subscription.ticket, journeyMinutes: subscription.journeyMinutes)
            let decision = PushNotices.next(status, sent: subscription.sent, at: now)
            if let notice = decision.notice, let status, let live = directory.store(containing: subscription.ticket),
                let target = try? endpoints.target(subscription.endpoint)
            {
                let profile = live.record.profile
                let text = PushNotices.message(
                    notice,
                    code: status.ticket.code,
                    store: profile.name,
                    page: subscription.page,
                    clock: StoreClock(profile),
                    PageStrings(query: subscription.language, acceptLanguage: nil)
                )
                sender.send(
                    PushSender.Message(
                        subscription: subscription,
                        target: target,
                        text: text,
                        urgency: notice.key == "ended" ? "normal" : "high",
                        ttlSeconds: Self.ttl(notice, at: now)
                    )
                )
                subscription.sent.append(notice.key)
                if !decision.forget { try await database.savePush(subscription) }
            }
            if decision.forget { _ = try await database.removePush(ticket: subscription.ticket) }
        }
    }

    /// How long a push service keeps a notice for a phone that is off: a call until its window ends.
    static func ttl(_ notice: PushNotices.Notice, at now: Timestamp) -> Int {
        switch notice {
        case .leave: 600
        case .called(_, let ends?), .ending(_, let ends): max(60, Int((ends - now.milliseconds) / 1000))
        case .called: 600
        case .ended: 3600
        }
    }
}
