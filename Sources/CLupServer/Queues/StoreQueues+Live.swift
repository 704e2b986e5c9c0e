import KioskCore
import ServiceSupport

extension StoreQueues {
    public struct Live: Sendable {
        public var record: StoreRecord
        public var state: QueueState
        public var lastSequence: Int64
        public let changes: ChangeFeed
        /// Learnt from the store's log (``refreshModels(at:)``); nil until computed.
        public private(set) var model: WaitModel?
        /// What the log's last weeks say about the line, gathered as events are applied (the model's input).
        public internal(set) var traffic = StoreTraffic()
        /// What the tickets in line were told, to score the estimate as they leave the line.
        var toldWaits = ToldWaits()
        /// The wait estimate of `model`, else of the store's configured average visit.
        public private(set) var estimator: WaitEstimator {
            didSet { lineEpoch &+= 1 }
        }
        /// The line's roll, kept between requests (``RollCache``), and what it needs to know whether it still
        /// holds: a count of the line's changes but tickets joining its end, and those since the last change.
        let rolls = RollCache()
        /// The log's last events, for kiosks' long-polls (``RecentEvents``).
        let recent = RecentEvents()
        private(set) var lineEpoch = 0
        /// Counts the estimator's changes (a learnt model, a changed visit): a kept roll of another is made anew.
        private(set) var estimatorEpoch = 0
        private(set) var joinedAtEnd: [TicketID] = []

        init(record: StoreRecord, state: QueueState, lastSequence: Int64, callWindow: Duration) {
            self.record = record
            self.state = state
            self.lastSequence = lastSequence
            changes = ChangeFeed()
            model = nil
            estimator = WaitEstimator(model: Self.prior(record.profile), callWindow: callWindow)
        }

        /// The model of a store without history: its configured average visit.
        static func prior(_ profile: StoreProfile) -> WaitModel {
            .prior(averageVisit: .seconds(profile.averageVisitMinutes * 60))
        }

        /// The store's prior (``prior(_:)``).
        var prior: WaitModel { Self.prior(record.profile) }

        /// Takes a newly learnt (or another replica's) model; the estimator follows.
        mutating func set(model: WaitModel) {
            guard model != self.model else { return }
            self.model = model
            estimator = WaitEstimator(model: model, callWindow: estimator.callWindow)
            estimatorEpoch &+= 1
        }

        /// Takes the store's changed profile; without a learnt model the estimator follows its average visit.
        mutating func set(profile: StoreProfile) {
            let visitChanged = profile.averageVisitMinutes != record.profile.averageVisitMinutes
            record.profile = profile
            if model == nil, visitChanged {
                estimator = WaitEstimator(model: prior, callWindow: estimator.callWindow)
                estimatorEpoch &+= 1
            }
        }

        /// Folds `event` into the queue, and what it says into the traffic (before: who was called when); the
        /// told wait it scores, if any.
        @discardableResult
        mutating func apply(_ event: StoreEvent) -> (told: WaitRange, waited: Duration)? {
            traffic.observe(event, before: state)
            let scored = toldWaits.observe(event, before: state)
            if let scored { traffic.observe(scored: scored.told, waited: scored.waited, at: event.time) }
            state.apply(event)
            if case .dayStarted = event.body { toldWaits.prune(keeping: state) }
            noteLineChange(event)
            return scored
        }

        /// Whether `event` only added a ticket at the line's end (the kept roll goes on over it), changed nothing
        /// of the line, or changed it otherwise (the next wait asked for rolls it anew).
        private mutating func noteLineChange(_ event: StoreEvent) {
            switch event.body {
            case .scanRefused: return
            case .ticketIssued(let ticket, _) where ticket.kind == .paper: return  // in a printer, not in line
            case .ticketIssued(let ticket, _) where ticket.kind == .app:
                if isLastInLine(ticket.id), joinedAtEnd.count < 5_000 { return joinedAtEnd.append(ticket.id) }
            case .ticketTaken(let id):
                if isLastInLine(id), joinedAtEnd.count < 5_000 { return joinedAtEnd.append(id) }
            default: break
            }
            lineEpoch &+= 1
            joinedAtEnd.removeAll()
        }

        private func isLastInLine(_ id: TicketID) -> Bool {
            guard case .waiting? = state.stage(of: id) else { return false }
            return state.peopleAhead(of: id) == state.waitingCount - 1
        }

        /// The told wait of the ticket at `position` in the line at `now` (the line's length: one taken now).
        public func wait(position: Int, at now: Timestamp) -> WaitRange {
            rolls.wait(position: position, in: self, at: now)
        }
    }
}
