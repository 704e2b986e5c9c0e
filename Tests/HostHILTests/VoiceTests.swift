import DeviceEmulators
import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// The kiosk's voice, heard: espeak-ng's speech written to WAV files (the file sink the qemu rig's sound card
/// stands in for here), listened to by an independent recognizer (pocketsphinx) that knows only the phrases'
/// words. A blind customer learns the number of the ticket taken, and a call names the ticket called.
@Suite(.serialized) struct VoiceTests {
    static let missing = (Listener.tools + ["zbarimg"]).filter { !HIL.needs($0) }

    /// WAV files the voice wrote, by phrase label (`called-A003`), in the order said.
    static func phrases(in folder: String) -> [(label: String, path: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".wav") && !$0.hasPrefix(".") }.sorted().map { name in
            (String(name.dropFirst(7).dropLast(4)), "\(folder)/\(name)")
        }
    }

    @Test(.enabled(if: missing.isEmpty, "needs \(missing) (make test installs pocketsphinx, sox and zbar-tools)"))
    func numbersTakenAndCalledAreHeard() async throws {
        let folder = HIL.temporaryDirectory("voice")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.store.capacity = 20
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
            $0.voice.enabled = true
            $0.voice.output = .folder(folder)
        }
        do {
            let voice = try #require(rig.kiosk.voice)
            try await rig.requireTickets(1)
            // Ten customers take a ticket, a few seconds apart as at a door: each hears its number, and with
            // room inside each ticket is called at once.
            for n in 1...10 {
                await rig.customerTakes()
                try await rig.requireTickets(n + 1)
                let said = await rig.wait(.seconds(20)) { voice.status.spoken >= 2 * n }
                #expect(said != nil, "phrase \(2 * n) not said: \(voice.status)")
            }
            // The first ticket at the door: its decision is said too.
            let png = try #require(rig.emulator.tickets[0].pngPath)
            let payload = try #require(try HIL.decodeQR(png: png).first)
            #expect(try await rig.scan(payload, on: scanner) == "admit A001")
            #expect(await rig.wait(.seconds(20)) { voice.status.spoken >= 21 } != nil, "\(voice.status)")
            #expect(voice.status.dropped == 0 && voice.status.failed == 0, "\(voice.status)")
            #expect(voice.status.firstSampleMilliseconds.map { $0 < 300 } == true, "\(voice.status)")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()

        let said = Self.phrases(in: folder)
        let calls = said.filter { $0.label.hasPrefix("called-") }
        let numbers = said.filter { $0.label.hasPrefix("number-") }
        #expect(calls.map(\.label) == (1...10).map { "called-A\(String(format: "%03d", $0))" })
        #expect(numbers.map(\.label) == (1...10).map { "number-A\(String(format: "%03d", $0))" })
        // The calls, each a chime then the words: the tone near 659 Hz and the quiet after it.
        for (label, path) in calls {
            let tone = try Listener.level(path, from: 0.02, for: 0.3)
            let quiet = try Listener.level(path, from: 1.0, for: 0.4)
            #expect(abs(tone.frequency - 659) < 40 && tone.rms > 0.05 && quiet.rms < 0.01, "\(label): \(tone) \(quiet)")
        }
        var transcript: [String] = []
        var numbersRight = 0
        for (label, path) in calls + numbers {
            let heard = try Listener.heard(path)
            transcript.append("\(label): \(heard.joined(separator: " | "))")
            let code = String(label.split(separator: "-")[1])
            if heard.contains(where: { $0.contains("your number is \(Listener.words(code))") }) { numbersRight += 1 }
        }
        let codes = (1...10).map { "A\(String(format: "%03d", $0))" }
        let callsRight = Listener.callsHeard(codes, in: try calls.flatMap { try Listener.heard($0.path) })
        print(
            "voice: calls heard right \(callsRight)/10, numbers \(numbersRight)/10\n  "
                + transcript.joined(separator: "\n  ")
        )
        #expect(callsRight >= 9, "\(transcript)")
        #expect(numbersRight >= 9, "\(transcript)")
        let door = try #require(said.first { $0.label == "door-admit" })
        #expect(try Listener.heard(door.path).contains { $0.contains("please come in") })
    }

    /// A kiosk whose sound card is missing (unplugged, or a wrong name) prints and admits as before; its
    /// status says what to do and counts what it could not say.
    @Test func aMissingSoundCardIsAWarningNotAStop() async throws {
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.voice.enabled = true
            $0.voice.output = .alsa("hw:CARD=NoSuchCard")
        }
        do {
            let voice = try #require(rig.kiosk.voice)
            try await rig.requireTickets(1)
            for n in 1...3 {
                await rig.customerTakes()
                try await rig.requireTickets(n + 1)
            }
            #expect(await rig.wait { voice.status.failed >= 3 } != nil, "\(voice.status)")
            #expect(voice.status.state == "unavailable" && voice.status.spoken == 0, "\(voice.status)")
            #expect(voice.status.action?.contains("aplay -l") == true, "\(voice.status)")
            #expect(rig.station.status.ticketsToday == 4)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
