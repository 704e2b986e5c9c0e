import Foundation
import Hummingbird
import Logging
import NIOSSL
import ServiceLifecycle

extension ServerApp {
    /// Web Push (issue 49), when `options.push` enables it: the routes on `router`, and the services to run —
    /// the sender and the duty that decides the notices (on the replica holding the lease).
    static func push(
        _ options: Options,
        database: any ServerStorage,
        desk: ShopperDesk,
        page: TicketPage,
        lease: DutyLease,
        router: Router<ServerContext>,
        logger: Logger
    ) async throws -> [any Service] {
        guard options.push.enabled else { return [] }
        let subject = options.push.subject ?? Self.origin(of: options.statusURL)
        let vapid = VAPID(secret: try await database.serverKey("web-push"), subject: subject)
        let roots = try options.push.testLoopbackCA.map { try NIOSSLCertificate.fromPEMFile($0) }
        let endpoints = PushEndpoints(hosts: options.push.services, allowLoopback: roots != nil)
        let push = PushDesk(
            database: database,
            desk: desk,
            directory: page.directory,
            endpoints: endpoints,
            sender: PushSender(
                vapid: vapid,
                endpoints: endpoints,
                trustRoots: roots,
                clock: options.clock,
                logger: logger
            ) { ticket in _ = try? await database.removePush(ticket: ticket) },
            vapid: vapid,
            logger: logger
        )
        PushRoutes(push: push, page: page).register(on: router)
        PushWorker.register(on: router)
        let duty = LeaseDuty(
            lease: lease,
            interval: options.pushInterval,
            failure: "cannot send Web Push notices",
            logger: logger
        ) { try await push.turn() }
        return [push.sender, duty]
    }

    /// `https://host` of the status URL (the VAPID subject when none is configured).
    static func origin(of statusURL: String) -> String {
        let host = URLComponents(string: statusURL.lowercased())?.host ?? "clup.example"
        return "https://\(host)"
    }
}
