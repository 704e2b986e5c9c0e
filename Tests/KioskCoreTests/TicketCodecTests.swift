import FoundationEssentials
import Testing

@testable import KioskCore

@Suite struct Base45Tests {
    /// RFC 9285 §4.3 examples.
    @Test func rfcExamples() {
        #expect(Base45.encode(Array("AB".utf8)) == "BB8")
        #expect(Base45.encode(Array("Hello!!".utf8)) == "%69 VD92EX0")
        #expect(Base45.encode(Array("base-45".utf8)) == "UJCLQE7W581")
        #expect(Base45.decode("QED8WEX0") == Array("ietf!".utf8))
    }

    @Test func roundTripsAnyBytes() {
        var rng = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(Base45.decode(Base45.encode(bytes)) == bytes)
        }
    }

    @Test func refusesWhatIsNotBase45() {
        #expect(Base45.decode("abc") == nil)  // lower case is not in the alphabet
        #expect(Base45.decode("GGW") == nil)  // 65535 < value: out of range
        #expect(Base45.decode("A") == nil)  // a dangling single character
    }
}

@Suite struct URL42Tests {
    @Test func roundTripsAndLeavesOutWhatAURLPathCannotHold() {
        var rng = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = QRAlphanumeric.url42.encode(bytes)
            #expect(QRAlphanumeric.url42.decode(text) == bytes)
            #expect(text.count == length / 2 * 3 + length % 2 * 2)  // as long as Base45
            #expect(!text.contains { " %/".contains($0) })
        }
        #expect(QRAlphanumeric.url42.decode("AB C") == nil)
        #expect(QRAlphanumeric.url42.decode("A%B") == nil)
        #expect(QRAlphanumeric.url42.decode(":::") == nil)  // 41 + 41·42 + 41·42² > 65535
    }
}

@Suite struct TicketCodecTests {
    let store = UUID(uuidString: "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90")!
    let prefix = "HTTPS://CLUP.EXAMPLE/T/"
    let signer = TicketSigner()

    func ticket(_ kind: TicketKind = .paper, number: Int = 42) -> Ticket {
        Ticket(
            id: .v7(at: Timestamp(seconds: 1_795_000_000)),
            store: store,
            kind: kind,
            code: TicketCode(prefix: "A", number: number),
            issuedAt: Timestamp(seconds: 1_795_000_000),
            issuer: "entrance-1"
        )
    }

    @Test func roundTrip() throws {
        let t = ticket(.booking)
        let text = TicketCodec.encode(
            t,
            validFrom: Timestamp(seconds: 1_795_003_600),
            validUntil: Timestamp(seconds: 1_795_003_900),
            signer: signer,
            prefix: prefix
        )
        #expect(text.count == prefix.count + 177)
        // Every character of the code may stand in a URL's path: no space, no '%', no '/'.
        #expect(
            text.dropFirst(prefix.count).allSatisfy {
                $0.isASCII && ($0.isUppercase || $0.isNumber || "$*+-.:".contains($0))
            }
        )
        let claims = try TicketCodec.decode(text, prefix: prefix, keyRing: KeyRing([signer.publicKey]), store: store)
        #expect(claims.ticket == t.id && claims.store == store && claims.kind == .booking)
        #expect(claims.code.description == "A042")
        #expect(claims.issuedAt == t.issuedAt)
        #expect(claims.validFrom == Timestamp(seconds: 1_795_003_600))
        #expect(claims.validUntil == Timestamp(seconds: 1_795_003_900))
        #expect(claims.keyID == signer.keyID)
    }

    func decodeError(_ text: String, ring: KeyRing? = nil, store other: StoreID? = nil) -> TicketCodec.DecodeError? {
        do {
            _ = try TicketCodec.decode(
                text,
                prefix: prefix,
                keyRing: ring ?? KeyRing([signer.publicKey]),
                store: other ?? store
            )
            return nil
        } catch {
            return error
        }
    }

    @Test func everyWayOfBeingWrongHasItsReason() {
        let good = TicketCodec.encode(ticket(), signer: signer, prefix: prefix)
        #expect(decodeError(good) == nil)
        #expect(decodeError("https://example.com/") == .notATicket)
        #expect(decodeError(prefix + "abc") == .malformed)
        #expect(decodeError(String(good.dropLast(30))) == .truncated)
        #expect(decodeError(good + "000") == .malformed)
        // Change one character of the signed body: the signature no longer matches.
        var chars = Array(good)
        let i = prefix.count + 100
        chars[i] = chars[i] == "A" ? "B" : "A"
        let altered = String(chars)
        #expect([.badSignature, .malformed].contains(decodeError(altered)))
        #expect(decodeError(good, ring: KeyRing([TicketSigner().publicKey])) == .unknownKey(signer.keyID))
        if case .wrongStore = decodeError(good, store: UUID()) {
        } else {
            Issue.record("another store's ticket accepted")
        }
        // A forger with their own key, claiming our key id, cannot produce our signature.
        let forger = TicketSigner()
        let forged = TicketCodec.encode(ticket(), signer: forger, prefix: prefix)
        let ring = KeyRing([signer.publicKey])
        #expect(decodeError(forged, ring: ring) == .unknownKey(forger.keyID))
        // Another store's ticket, signed by a kiosk we have never heard of, says so (refused either way).
        let otherStore = UUID()
        if case .wrongStore(let claimed) = decodeError(good, ring: KeyRing(), store: otherStore) {
            #expect(claimed != otherStore)
        } else {
            Issue.record("another store's ticket with an unknown key not named as such")
        }
    }

    @Test func flippingAnyBodyByteIsDetected() throws {
        let good = TicketCodec.encode(ticket(), signer: signer, prefix: prefix)
        let bytes = try #require(TicketCodec.record(of: good.dropFirst(prefix.count)))
        #expect(bytes.first == TicketCodec.version)
        for index in 0..<bytes.count {
            var altered = bytes
            altered[index] ^= 0x01
            let error = decodeError(prefix + TicketCodec.text(of: altered))
            #expect(error != nil, "flipping byte \(index) went unnoticed")
        }
    }

    /// Codes printed before the URL-safe form (format 1, Base45) are still verified at the door; a format-1
    /// code altered anywhere is still refused.
    @Test func formatOneCodesStillVerify() throws {
        let t = ticket(.paper, number: 7)
        var record = try #require(
            TicketCodec.record(of: TicketCodec.encode(t, signer: signer, prefix: prefix).dropFirst(prefix.count))
        )
        record[0] = 1
        let body = Array(record[0..<54])
        record = body + signer.sign(body)
        let old = prefix + Base45.encode(record)
        let claims = try TicketCodec.decode(old, prefix: prefix, keyRing: KeyRing([signer.publicKey]), store: store)
        #expect(claims.ticket == t.id && claims.code.description == "A007")
        var altered = record
        altered[60] ^= 0x40
        #expect(decodeError(prefix + Base45.encode(altered)) != nil)
        // Thousands of format-1 codes, whatever characters they happen to use, all verify.
        for n in 0..<2000 {
            var r = record
            r[52] = UInt8(n >> 8)
            r[53] = UInt8(n & 0xFF)
            let b = Array(r[0..<54])
            let text = prefix + Base45.encode(b + signer.sign(b))
            #expect(decodeError(text) == nil, "format-1 code \(n) refused")
        }
    }

    @Test func prefixValidation() {
        #expect(TicketCodec.isValidPrefix("HTTPS://CLUP.EXAMPLE/T/"))
        #expect(!TicketCodec.isValidPrefix("https://clup.example/t/"))
        #expect(!TicketCodec.isValidPrefix(String(repeating: "A", count: 45)))
    }
}

@Suite struct TicketTests {
    @Test func codeFormatting() {
        #expect(TicketCode(prefix: "A", number: 7).description == "A007")
        #expect(TicketCode(prefix: "BC", number: 1234).description == "BC1234")
        #expect(TicketCode("A042") == TicketCode(prefix: "A", number: 42))
        #expect(TicketCode("a042") == nil && TicketCode("ABC1") == nil && TicketCode("A") == nil)
    }

    @Test func localDatesAndWeekdays() {
        #expect(BusinessDay(number: 0).weekday == 3)  // 1970-01-01, a Thursday
        #expect(BusinessDay(number: -1).weekday == 2)
        #expect(BusinessDay(number: 20_409).weekday == 0)  // 2025-11-17, a Monday
        // 23:30 UTC on a Sunday is already Monday at UTC+1.
        let sundayNight = Timestamp(seconds: 20_408 * 86_400 + 23 * 3600 + 1800)
        #expect(BusinessDay(localDateOf: sundayNight, zone: .utc).weekday == 6)
        #expect(BusinessDay(localDateOf: sundayNight, zone: StoreTimeZone(fixedOffsetSeconds: 3600)).weekday == 0)
    }

    @Test func businessDayStartsAtOpeningTime() {
        let opening = TimeOfDay(hour: 7, minute: 0).secondsAfterMidnight
        // 2026-11-22 06:59 and 07:00 local, one hour ahead of UTC.
        let before = Timestamp(seconds: 1_795_327_140)  // 05:59 UTC
        let after = Timestamp(seconds: 1_795_327_200)  // 06:00 UTC
        let dayBefore = BusinessDay(at: before, openingTime: opening, utcOffset: 3600)
        let dayAfter = BusinessDay(at: after, openingTime: opening, utcOffset: 3600)
        #expect(dayAfter.number == dayBefore.number + 1)
        #expect(TimeOfDay("07:30")?.description == "07:30")
        #expect(TimeOfDay("24:00") == nil && TimeOfDay("7") == nil)
    }

    @Test func uuidV7IsTimeOrderedAndVersioned() {
        let a = UUID.v7(at: Timestamp(milliseconds: 1000))
        let b = UUID.v7(at: Timestamp(milliseconds: 1001))
        #expect(a.uuidString < b.uuidString)
        #expect(a.bytes[6] >> 4 == 7)
        #expect(a.bytes[8] >> 6 == 2)
    }
}
