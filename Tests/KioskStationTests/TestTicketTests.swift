import Drivers
import KioskCore
import Testing

@testable import KioskStation

@Suite struct TestTicketTests {
    @Test func testTicketEncodesForEveryProfile() throws {
        #expect(TestTicket.payload.count == 100)
        for id in PrinterProfile.bundledIDs {
            let profile = try PrinterProfile.load(named: id)
            let bytes = try EscPosEncoder(profile: profile).encode(TestTicket.document())
            #expect(bytes.starts(with: EscPos.initialize))
            #expect(bytes.suffix(3) == [0x1D, 0x56, 0x01], "\(id) does not end with a partial cut")
            if profile.nativeQR { #expect(bytes.count <= 400, "\(id): \(bytes.count) bytes") }
        }
    }
}
