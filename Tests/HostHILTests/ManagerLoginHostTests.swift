import Foundation
import FoundationNetworking
import Glibc
import ServiceSupport
import Testing

@testable import KioskStation
@testable import Rigs

/// A manager's tablet on the shop's network (issue 45): the manager page's buttons act for another device only
/// after a login with `[http] manager_password`; on the box itself (loopback) they need none. The kiosk listens
/// on every address and the test reaches it through this machine's own non-loopback address, so kioskd sees a
/// client that is not the box.
@Suite(.serialized) struct ManagerLoginHostTests {
    struct Answer {
        var status: Int
        var body: String
        var cookie: String?
    }

    static func request(
        _ method: String,
        _ url: String,
        json: String? = nil,
        cookie: String? = nil
    ) async throws -> Answer {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        let session = URLSession(configuration: configuration)
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        return Answer(
            status: http?.statusCode ?? 0,
            body: String(decoding: data, as: UTF8.self),
            cookie: http?.value(forHTTPHeaderField: "Set-Cookie")
        )
    }

    @Test(.enabled(if: HIL.lanAddress != nil, "this machine has no non-loopback IPv4 address to reach the kiosk by"))
    func aTabletLogsInBeforeItPressesAButton() async throws {
        let lan = try #require(HIL.lanAddress)
        let password = "shift manager 7"
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.door.enabled = true
            $0.http.host = "0.0.0.0"
            $0.http.serverNames = [lan]
            $0.http.managerPassword = try? PasswordHash(password: password)
        }
        do {
            let port = try #require(rig.kiosk.httpPort.wait())
            let tablet = "http://\(lan):\(port)"
            let box = "http://127.0.0.1:\(port)"
            // The pages stay open; the buttons do not.
            #expect(try await Self.request("GET", "\(tablet)/status").status == 200)
            let session = try await Self.request("GET", "\(tablet)/session")
            #expect(session.body.contains("\"local\":false") && session.body.contains("\"manager\":false"))
            #expect(session.body.contains("\"passwordSet\":true"))
            let refused = try await Self.request("POST", "\(tablet)/door/exit")
            #expect(refused.status == 401 && refused.body.contains("log in"))
            #expect(try await Self.request("POST", "\(tablet)/printer/take").status == 401)
            // The box itself needs no login: the door answers (nobody is inside yet).
            let local = try await Self.request("POST", "\(box)/door/exit")
            #expect(local.status == 409 && local.body.contains("nobody is inside"))
            // A wrong password, a body that is not the object, then the right one.
            #expect(try await Self.request("POST", "\(tablet)/login", json: "{\"password\":\"guess\"}").status == 401)
            #expect(try await Self.request("POST", "\(tablet)/login", json: "password=\(password)").status == 400)
            let login = try await Self.request("POST", "\(tablet)/login", json: "{\"password\":\"\(password)\"}")
            #expect(login.status == 200)
            let setCookie = try #require(login.cookie)
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
            #expect(
                try await Self.request("GET", "\(tablet)/session", cookie: cookie).body.contains("\"manager\":true")
            )
            let pressed = try await Self.request("POST", "\(tablet)/door/exit", cookie: cookie)
            #expect(pressed.status == 409 && pressed.body.contains("nobody is inside"))
            // A forged or ended session is refused.
            #expect(
                try await Self.request("POST", "\(tablet)/door/exit", cookie: "kioskd_manager=forged").status == 401
            )
            #expect(try await Self.request("POST", "\(tablet)/logout", cookie: cookie).status == 200)
            #expect(try await Self.request("POST", "\(tablet)/door/exit", cookie: cookie).status == 401)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    @Test(.enabled(if: HIL.lanAddress != nil, "this machine has no non-loopback IPv4 address to reach the kiosk by"))
    func withoutAPasswordTheButtonsWorkOnlyOnTheBox() async throws {
        let lan = try #require(HIL.lanAddress)
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.door.enabled = true
            $0.http.host = "0.0.0.0"
            $0.http.serverNames = [lan]
        }
        do {
            let port = try #require(rig.kiosk.httpPort.wait())
            let refused = try await Self.request("POST", "http://\(lan):\(port)/door/exit")
            #expect(refused.status == 403 && refused.body.contains("kioskd manager-password"))
            let login = try await Self.request(
                "POST",
                "http://\(lan):\(port)/login",
                json: "{\"password\":\"anything1\"}"
            )
            #expect(login.status == 403)
            #expect(try await Self.request("POST", "http://127.0.0.1:\(port)/door/exit").status == 409)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
