import Hummingbird
import SyncWire

/// Pairing a kiosk by the code it prints (``KioskPairing``): `POST /v1/pairing` gives a box its codes,
/// `POST /v1/pairing/token` answers its polls. Neither takes a credential: the box has none yet.
struct PairingRoutes {
    let pairing: KioskPairing
    let clients: ClientAddress
    let transport: TransportSecurity

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/pairing") { request, context -> Response in
            let asked = try await request.decode(PairingRequest.self, limit: 16 << 10)
            let scheme = transport.isHTTPS(request, context) ? "https" : "http"
            let grant = try await pairing.ask(
                asked,
                from: clients.of(request, peer: context.remoteAddress),
                origin:
                    "\(scheme)://\(request.head.authority.flatMap { $0.utf8.count <= 255 ? $0 : nil } ?? "localhost")"
            )
            var response = try grant.response(from: request, context: context)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        router.post("v1/pairing/token") { request, context -> Response in
            let poll = try await request.decode(PairingPoll.self, limit: 16 << 10)
            var response = try await pairing.poll(poll).response(from: request, context: context)
            response.headers[.cacheControl] = "no-store"  // a credential: never kept by a cache (RFC 6749 §5.1)
            return response
        }
    }
}
