import Foundation
import Hummingbird
import KioskCore
import SyncWire

/// Pairing a kiosk by the code it prints (``KioskPairing``): `GET /console/pair` asks for the code (the printed
/// QR opens it with the code filled in, on a phone already logged in), shows which box asks and lets the manager
/// pick the store — their own, or any for the system manager — and the role; `POST /console/pair` approves or
/// refuses. The box collects its credential at its next poll.
struct PairingConsole {
    let sessions: ConsoleSessions
    let pairing: KioskPairing
    let directory: StoreDirectory
    let clients: ClientAddress
    let pages: PageResponse

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("console/pair") { request, context -> Response in
            let typed = request.uri.queryParameters["code"].map(String.init) ?? ""
            guard let who = await sessions.who(request) else {
                let path = typed.isEmpty ? "/console/pair" : "/console/pair?code=" + typed.prefix(16)
                return ConsoleRoutes.toLogin(request, from: path)
            }
            guard !typed.isEmpty else { return page(request, who: who, code: "", status: .ok) }
            do {
                let found = try await pairing.pending(
                    code: typed,
                    manager: Self.name(who),
                    from: clients.of(request, peer: context.remoteAddress)
                )
                return page(request, who: who, code: found.userCode, found: found, status: .ok)
            } catch {
                let error = ConsoleSessions.refusal(error, request)
                return page(request, who: who, code: String(typed.prefix(16)), problem: error, status: error.status)
            }
        }
        router.post("console/pair/offer") { request, _ -> Response in
            guard let who = await sessions.who(request) else {
                return ConsoleRoutes.toLogin(request, from: "/console/pair")
            }
            return await offer(request, who: who)
        }
        router.post("console/pair") { request, context -> Response in
            let form = await ConsoleForm.read(request)
            guard let who = await sessions.who(request) else {
                return ConsoleRoutes.toLogin(request, from: "/console/pair")
            }
            let strings = PageStrings(request)
            let code = form["code"] ?? ""
            guard sessions.formIsGenuine(request, csrf: form["csrf"]) else {
                return page(
                    request,
                    who: who,
                    code: code,
                    problem: Refusal(.forbidden, strings["console.stale_form"]),
                    status: .forbidden
                )
            }
            do {
                let approve = form["decision"] != "deny"
                var store: StoreID?
                if approve {
                    guard let chosen = (form["store"]).flatMap(UUID.init(uuidString:)), who.mayManage(chosen) else {
                        throw Refusal(.forbidden, strings["console.forbidden"], field: "store")
                    }
                    store = chosen
                }
                guard let role = KioskRole(rawValue: form["role"] ?? "both") else {
                    throw Refusal.invalid("printer, door or both", field: "role")
                }
                let decided = try await pairing.decide(
                    code: code,
                    store: store,
                    role: role,
                    manager: Self.name(who),
                    from: clients.of(request, peer: context.remoteAddress)
                )
                let done = strings.format(approve ? "console.paired" : "console.pair_refused", text: decided.device)
                return page(request, who: who, code: "", notice: done, status: .ok)
            } catch {
                let error = ConsoleSessions.refusal(error, request)
                return page(request, who: who, code: code, problem: error, status: error.status)
            }
        }
    }

    /// A door with no printer: the manager names it and picks the store and role; the page shows the QR its
    /// scanner reads (``KioskPairing/offer(_:store:role:manager:)``).
    private func offer(_ request: Request, who: ConsoleSessions.Who) async -> Response {
        let form = await ConsoleForm.read(request)
        let strings = PageStrings(request)
        guard sessions.formIsGenuine(request, csrf: form["csrf"]) else {
            return page(
                request,
                who: who,
                code: "",
                problem: Refusal(.forbidden, strings["console.stale_form"]),
                status: .forbidden
            )
        }
        do {
            guard let store = form["store"].flatMap(UUID.init(uuidString:)), who.mayManage(store) else {
                throw Refusal(.forbidden, strings["console.forbidden"], field: "store")
            }
            guard let role = KioskRole(rawValue: form["role"] ?? "door") else {
                throw Refusal.invalid("printer, door or both", field: "role")
            }
            let device = form["device"] ?? ""
            let secret = try await pairing.offer(device, store: store, role: role, manager: Self.name(who))
            let label = strings.format("console.offer_for", text: device)
            let picture = QRPicture.svg(PairingOffer.payload(secret), label: label) ?? ""
            return page(request, who: who, code: "", offer: ["qr": picture, "label": label], status: .ok)
        } catch {
            let error = ConsoleSessions.refusal(error, request)
            return page(request, who: who, code: "", problem: error, status: error.status)
        }
    }

    /// Whose decision it is, as the pairing records it and the throttle counts it.
    static func name(_ who: ConsoleSessions.Who) -> String {
        switch who {
        case .admin: return "admin"
        case .manager(let username, _): return username
        }
    }

    private func page(
        _ request: Request,
        who: ConsoleSessions.Who,
        code: String,
        found: Pairing? = nil,
        offer: [String: String]? = nil,
        notice: String? = nil,
        problem: Refusal? = nil,
        status: HTTPResponse.Status
    ) -> Response {
        let strings = PageStrings(request)
        let stores = directory.all.filter { who.mayManage($0.record.id) }.map {
            ["id": ConsoleRoutes.id($0.record.id), "name": $0.record.profile.name]
        }.sorted { $0["name"]! < $1["name"]! }
        var values: [String: Any] = [
            "w": ConsoleView.words(strings),
            "pageTitle": "\(strings["console.title"]) — \(strings["console.pair_title"])",
            "signedInAs": strings.format("console.signed_in_as", text: Self.name(who)), "csrf": sessions.csrf(request),
            "code": found.map { Pairing.display($0.userCode) } ?? code,
        ]
        values["stores"] = stores
        if let offer { values["offer"] = offer }
        if let notice { values["notice"] = notice }
        if let problem { values["problem"] = strings.format("console.problem", text: problem.message) }
        if let found {
            let asked = found.askedRole ?? .both
            values["pairing"] = [
                "asks": strings.format("console.pair_asks", text: found.device),
                "roles": KioskRole.allCases.map {
                    ["value": $0.rawValue, "name": strings["console.role_" + $0.rawValue], "selected": $0 == asked]
                },
            ]
        }
        return pages.page("consolePair", values, strings, status: status)
    }
}
