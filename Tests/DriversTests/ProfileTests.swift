import StrictTOML
import Testing

@testable import Drivers

@Suite struct ProfileTests {
    @Test func theShippedProfilesLoad() throws {
        let ids = PrinterProfile.bundledIDs
        for required in [
            "generic-58mm", "generic-80mm", "epson-tm-t88", "epson-tm-t20", "custom-vkp80iii", "citizen-ppu-700",
        ] {
            #expect(ids.contains(required), "missing profile \(required)")
        }
        for id in ids {
            let profile = try PrinterProfile.load(named: id)
            #expect(!profile.codePages.isEmpty)
            #expect(!profile.statusQueries.isEmpty)
            if profile.presenter {
                #expect(profile.ticketPresentQuery != nil, "\(id) has a presenter but no status bit for it")
            }
        }
        #expect(try PrinterProfile.load(named: "epson-tm-t20").nativeQR == false)
        #expect(try PrinterProfile.load(named: "custom-vkp80iii").ticketPresentQuery == .customFull)
        #expect(try PrinterProfile.load(named: "citizen-ppu-700").ticketPresentQuery == .dleEot4)
        #expect(try PrinterProfile.load(named: "epson-tm-t88").transport.usbVendor == 0x04B8)
    }

    @Test func statusBitsRoundTripForEveryProfileAndCondition() throws {
        for id in PrinterProfile.bundledIDs {
            let profile = try PrinterProfile.load(named: id)
            for (source, _) in profile.status.rules {
                let reportable = profile.status.conditions(of: source)
                for condition in reportable {
                    let bytes = profile.status.encode(source, [condition])
                    let decoded = profile.status.decode(source, bytes)
                    #expect(decoded[condition] == true, "\(id) \(source) \(condition)")
                    #expect(decoded.filter(\.value).count == 1, "\(id) \(source): \(condition) sets others")
                }
                #expect(profile.status.decode(source, profile.status.encode(source, [])).allSatisfy { !$0.value })
            }
        }
    }

    let minimal = """
        name = "Test"
        dots_per_line = 384
        code_pages = [{ name = "cp437", esc_t = 0 }]
        status_queries = ["dle_eot_1"]
        """

    func parseError(_ text: String) -> TOMLFileError? {
        do {
            _ = try PrinterProfile.parse(text, id: "t", file: "t.toml")
            return nil
        } catch {
            return error
        }
    }

    @Test func aMinimalProfileParses() throws {
        let profile = try PrinterProfile.parse(minimal, id: "t", file: "t.toml")
        #expect(profile.dotsPerLine == 384 && profile.codePages[0].page == .cp437)
    }

    @Test func unknownKeysAreErrorsNamingFileAndKey() {
        let error = parseError(minimal + "\ndots_per_lin = 5\n")
        #expect(error?.file == "t.toml")
        #expect(error?.key == "dots_per_lin")
        #expect(error?.description.contains("unknown key") == true)
        #expect(parseError(minimal + "\n[transport]\nbaudrate = 9600\n")?.key == "transport.baudrate")
        #expect(parseError(minimal + "\n[status.dle_eot_1]\nofline = 8\n")?.key == "status.dle_eot_1.ofline")
        #expect(parseError(minimal + "\n[status.dle_eot_9]\noffline = 8\n")?.key == "status.dle_eot_9")
    }

    @Test func wrongTypesAreErrorsNamingTheKey() {
        let wrong = minimal.replacingOccurrences(of: "dots_per_line = 384", with: "dots_per_line = \"384\"")
        let error = parseError(wrong)
        #expect(error?.key == "dots_per_line")
        #expect(error?.message.contains("expected an integer") == true)
        #expect(parseError(minimal + "\nnative_qr = 1\n")?.key == "native_qr")
        #expect(parseError(minimal + "\n[transport]\nflow_control = \"rts\"\n")?.key == "transport.flow_control")
    }

    @Test func retractIsHexBytesForAPresenter() throws {
        let presenter = minimal + "\npresenter = true\nretract = \"1D 52 30\"\n"
        #expect(try PrinterProfile.parse(presenter, id: "t", file: "t.toml").retract == [0x1D, 0x52, 0x30])
        #expect(try PrinterProfile.parse(minimal, id: "t", file: "t.toml").retract == nil)
        #expect(parseError(minimal + "\npresenter = true\nretract = \"1D R 30\"\n")?.key == "retract")
        #expect(parseError(minimal + "\npresenter = true\nretract = \"\"\n")?.key == "retract")
        let noPresenter = parseError(minimal + "\nretract = \"1D 52 30\"\n")
        #expect(noPresenter?.key == "retract" && noPresenter?.message.contains("presenter = true") == true)
        #expect(try PrinterProfile.load(named: "citizen-ppu-700").retract == [0x1D, 0x52, 0x30])
        #expect(try PrinterProfile.load(named: "custom-vkp80iii").retract == [0x1D, 0x65, 0x02])
    }

    @Test func maskOverFixedReplyBitsIsRefused() {
        // Bit 4 (0x10) is fixed to 1 in every DLE EOT reply: it cannot carry a condition.
        let error = parseError(minimal + "\n[status.dle_eot_2]\ncover_open = 0x10\n")
        #expect(error?.key == "status.dle_eot_2.cover_open")
        #expect(error?.message.contains("fixed bits") == true)
    }

    @Test func syntaxErrorsNameTheLine() {
        let error = parseError("name = \"x\"\ndots_per_line = = 3\n")
        #expect(error?.message.contains("line 2") == true)
    }

    @Test func unknownProfileNameListsTheKnownOnes() {
        do {
            _ = try PrinterProfile.load(named: "epson-tm-t99")
            Issue.record("loaded a profile that does not exist")
        } catch {
            #expect(error.message.contains("generic-80mm"))
        }
        #expect(throws: PrinterError.self) { try PrinterProfile.load(named: "../etc/passwd") }
    }
}
