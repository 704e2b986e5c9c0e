import KioskCore
import Testing

@testable import CLupServer
@testable import KioskStation

/// The console's enrolment snippet names the roles the credential allows: a door kiosk's turns the printer
/// off and the door on, a printer kiosk's the other way round, and what it says parses as kioskd reads it.
@Suite struct EnrolmentSnippetTests {
    @Test(arguments: [KioskRole.printer, .door, .both])
    func theSnippetSwitchesOnTheRolesTheCredentialAllows(role: KioskRole) throws {
        let text = "[store]\nid = \"6f1d5c2e-3b8a-4e61-9c7d-2a5b8e4f1c90\"\n" + StoreConsole.roleSections(role)
        let config = try KioskConfig.parse(text, file: "kioskd.toml")
        #expect(config.printer.enabled == (role != .door), "\(text)")
        #expect(config.door.enabled == (role != .printer), "\(text)")
    }
}
