/// The ticket numbers a printer has promised itself, kept apart from its database so that a database the card
/// damaged (or lost) cannot make a code be printed twice.
///
/// Before a number is handed out from a database, a reservation that covers it is on disk: made for that
/// database (``database``, its own id), the day and the prefix, up to ``upTo``, a block of ``block`` numbers at
/// a time (one small write every hundred tickets). A database that is not the one the reservation was made for
/// — a fresh one after damage, or one put back from elsewhere — numbers the day after ``upTo``: every number
/// handed out before is at most that.
public struct CodeReservation: Codable, Sendable, Equatable {
    /// The id of the database the numbers were handed out from.
    public var database: String
    public var prefix: String
    /// The business day's number (``BusinessDay/number``).
    public var day: Int64
    /// The highest number reserved: none above it was handed out.
    public var upTo: Int

    /// Numbers reserved at a time.
    public static let block = 100

    public init(database: String, prefix: String, day: Int64, upTo: Int) {
        self.database = database
        self.prefix = prefix
        self.day = day
        self.upTo = upTo
    }

    /// The highest number `database` must not hand out again for `prefix` on `day`, beyond its own tickets:
    /// ``upTo`` when the numbers were reserved from another database, else 0.
    public func floor(database: String, prefix: String, day: Int64) -> Int {
        database != self.database && prefix == self.prefix && day == self.day ? upTo : 0
    }

    /// The reservation to write before `number` is handed out from `database`, or nil when `reservation`
    /// covers it already. A reservation made for another database is never lowered.
    public static func covering(
        _ number: Int,
        database: String,
        prefix: String,
        day: Int64,
        reservation: CodeReservation?
    ) -> CodeReservation? {
        if let reservation, reservation.database == database, reservation.prefix == prefix,
            reservation.day == day, number <= reservation.upTo
        {
            return nil
        }
        return CodeReservation(database: database, prefix: prefix, day: day, upTo: number + block - 1)
    }
}
