extension PrinterStationMachine {
    /// One look at the printer (a status poll or push, the sensor, the control API).
    public struct Look: Sendable, Equatable {
        public var at: Duration
        /// The wall time, for a take recorded now.
        public var time: Timestamp
        public var today: BusinessDay
        /// No fault stops printing (paper, cover, offline).
        public var canPrint: Bool
        /// What the sensor said since the last look, oldest first (empty: it cannot tell).
        public var presence: [Bool]
        /// The control API says the waiting ticket was taken.
        public var takeRequested: Bool
        /// The store hands out tickets now (``StoreCalendar/handsOutTickets(at:)``, ``LastTickets``).
        public var handsOut: Bool
        /// The wait a new ticket would be told passes the store's closing, where it stops issuing then
        /// (``LastTickets``): the waiting ticket goes back in, and none is presented (`handsOut` is false).
        public var pastClosing: Bool
        /// What the waiting ticket printed no longer holds (``TicketPromise``): it goes back in, at most once per
        /// ``RetractRule/outdatedSpacing``.
        public var outdated: Bool

        public init(
            at: Duration,
            time: Timestamp,
            today: BusinessDay,
            canPrint: Bool,
            presence: [Bool],
            takeRequested: Bool = false,
            handsOut: Bool = true,
            pastClosing: Bool = false,
            outdated: Bool = false
        ) {
            self.at = at
            self.time = time
            self.today = today
            self.canPrint = canPrint
            self.presence = presence
            self.takeRequested = takeRequested
            self.handsOut = handsOut && !pastClosing
            self.pastClosing = pastClosing
            self.outdated = outdated
        }
    }
}
