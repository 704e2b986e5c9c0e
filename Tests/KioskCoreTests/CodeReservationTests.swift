import KioskCore
import Testing

/// The printer's reserved numbers: a block at a time for its own database, and a floor for any other one.
@Suite struct CodeReservationTests {
    let mine = CodeReservation(database: "db1", prefix: "A", day: 7, upTo: 199)

    @Test func aNumberInsideTheBlockNeedsNoWrite() {
        #expect(CodeReservation.covering(150, database: "db1", prefix: "A", day: 7, reservation: mine) == nil)
        #expect(CodeReservation.covering(199, database: "db1", prefix: "A", day: 7, reservation: mine) == nil)
    }

    @Test func theNextBlockIsReservedBeforeItsFirstNumber() {
        let next = CodeReservation.covering(200, database: "db1", prefix: "A", day: 7, reservation: mine)
        #expect(next == CodeReservation(database: "db1", prefix: "A", day: 7, upTo: 299))
        let first = CodeReservation.covering(1, database: "db1", prefix: "A", day: 7, reservation: nil)
        #expect(first?.upTo == 100)
    }

    @Test func aNewDayOrPrefixOrDatabaseIsReservedAnew() {
        #expect(CodeReservation.covering(1, database: "db1", prefix: "A", day: 8, reservation: mine)?.upTo == 100)
        #expect(CodeReservation.covering(1, database: "db1", prefix: "B", day: 7, reservation: mine)?.prefix == "B")
        #expect(CodeReservation.covering(5, database: "db2", prefix: "A", day: 7, reservation: mine)?.database == "db2")
    }

    @Test func anotherDatabaseNumbersAboveTheReserved() {
        #expect(mine.floor(database: "db2", prefix: "A", day: 7) == 199)
        #expect(mine.floor(database: "db1", prefix: "A", day: 7) == 0)
        #expect(mine.floor(database: "db2", prefix: "A", day: 8) == 0)
        #expect(mine.floor(database: "db2", prefix: "B", day: 7) == 0)
    }
}
