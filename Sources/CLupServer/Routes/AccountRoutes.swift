import Hummingbird
import KioskCore

/// `POST /v1/login` and `POST /v1/logout`: a store manager's session (``Accounts``). Wrong credentials are a
/// 401 that does not say which part was wrong; repeated failures wait (429).
struct AccountRoutes {
    let accounts: Accounts
    let clients: ClientAddress

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/login") { request, context -> Accounts.Session in
            let login = try await request.decode(Accounts.Login.self, limit: 16 << 10)
            return try await accounts.login(login, address: clients.of(request, peer: context.remoteAddress))
        }
        router.post("v1/logout") { request, _ -> Response in
            guard let token = request.bearerToken else { throw Refusal.unauthorized }
            try await accounts.logout(token)
            return Response(status: .noContent)
        }
    }
}
