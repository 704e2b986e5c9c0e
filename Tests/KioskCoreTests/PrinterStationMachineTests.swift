import FoundationEssentials
import TestSupport
import Testing

@testable import KioskCore

/// Every transition of the printer station's machine, then a day of random printer trouble against a
/// simulated printer and store: no code is cut twice, no take is recorded twice, every ticket a customer took
/// is recorded.
@Suite struct PrinterStationMachineTests {
    typealias Machine = PrinterStationMachine
    let today = BusinessDay(number: 20_000)
    let base = Timestamp(milliseconds: 1_800_000_000_000)

    func ticket(_ n: Int64, day: BusinessDay? = nil) -> Machine.Ticket {
        Machine.Ticket(id: .v7(at: Timestamp(milliseconds: n)), issuedOn: day ?? today)
    }

    func look(
        _ ms: Int64,
        canPrint: Bool = true,
        presence: [Bool] = [],
        take: Bool = false,
        today: BusinessDay? = nil,
        handsOut: Bool = true,
        pastClosing: Bool = false,
        outdated: Bool = false
    ) -> Machine.Input {
        .looked(
            .init(
                at: .milliseconds(ms),
                time: base + .milliseconds(ms),
                today: today ?? self.today,
                canPrint: canPrint,
                presence: presence,
                takeRequested: take,
                handsOut: handsOut,
                pastClosing: pastClosing,
                outdated: outdated
            )
        )
    }

    /// A machine with `t` cut and waiting since 0 ms.
    func waiting(_ t: Machine.Ticket, settings: Machine.Settings = .init()) -> Machine {
        var machine = Machine(settings: settings)
        _ = machine.handle(look(0))
        _ = machine.handle(.ticket(t, .notSent, present: nil, at: .zero, time: base))
        _ = machine.handle(.sent(t.id, canPrint: true, presence: [true], at: .zero))
        return machine
    }

    // MARK: - Transitions

    @Test func aFreshStationTakesATicketPrintsItAndPresentsIt() {
        var machine = Machine(settings: .init())
        let t = ticket(1)
        #expect(machine.handle(look(0)) == [.fetchTicket(issueNew: true)])
        #expect(
            machine.handle(.ticket(t, .notSent, present: nil, at: .zero, time: base))
                == [.print(t.id, clearBufferFirst: false)]
        )
        #expect(machine.waitingTicket == nil)
        #expect(
            machine.handle(.sent(t.id, canPrint: true, presence: [true], at: .milliseconds(300)))
                == [.markPrinted(t.id), .presented(t.id, printedNow: true)]
        )
        #expect(machine.waitingTicket == t.id)
    }

    @Test func noTicketWhileAFaultStopsPrinting() {
        var machine = Machine(settings: .init(pollInterval: .milliseconds(500)))
        #expect(machine.handle(look(0, canPrint: false)) == [.pause(.milliseconds(200))])
        #expect(machine.handle(look(200, canPrint: true)) == [.fetchTicket(issueNew: true)])
    }

    @Test func aTakeIsDecidedAfterTheDebounceAndRecordedBeforeTheNextTicket() {
        let t = ticket(1)
        var machine = waiting(t, settings: .init(pollInterval: .milliseconds(100), debounce: .milliseconds(30)))
        #expect(machine.handle(look(100, presence: [true])) == [.pause(.milliseconds(100))])
        // Gone: the debounce runs, and the next look comes when it ends, not a whole poll later.
        #expect(machine.handle(look(200, presence: [false])) == [.pause(.milliseconds(30))])
        #expect(machine.untilNextLook(at: .milliseconds(210)) == .milliseconds(20))
        #expect(
            machine.handle(look(230, presence: [false]))
                == [.recordTake(t.id, at: base + .milliseconds(230), whileAway: false)]
        )
        #expect(machine.waitingTicket == nil)
        #expect(machine.handle(.takeRecorded(t.id)) == [])
        #expect(machine.handle(look(240)) == [.fetchTicket(issueNew: true)])
    }

    @Test func aFlickerIsNotATake() {
        let t = ticket(1)
        var machine = waiting(t)
        _ = machine.handle(look(100, presence: [false]))
        #expect(machine.handle(look(110, presence: [true])) == [.pause(.milliseconds(100))])
        #expect(machine.handle(look(300, presence: [true])) == [.pause(.milliseconds(100))])
        #expect(machine.waitingTicket == t.id)
    }

    @Test func theControlAPIsTakeCountsAtOnce() {
        let t = ticket(1)
        var machine = waiting(t)
        #expect(
            machine.handle(look(50, presence: [true], take: true))
                == [.recordTake(t.id, at: base + .milliseconds(50), whileAway: false)]
        )
    }

    @Test func aTakeNotWrittenIsAskedFirstOnEveryTurnAndNoTicketIsIssued() {
        let t = ticket(1)
        var machine = waiting(t, settings: .init(debounce: .milliseconds(30)))
        _ = machine.handle(look(100, presence: [false]))
        let record = Machine.Action.recordTake(t.id, at: base + .milliseconds(130), whileAway: false)
        #expect(machine.handle(look(130, presence: [false])) == [record])
        // Storage full: no answer. Whatever the printer says, the same take comes first, at its own time.
        #expect(machine.handle(look(700)) == [record])
        #expect(machine.handle(look(900, canPrint: false)) == [record])
        _ = machine.handle(.connectionLost)
        #expect(machine.handle(look(1500)) == [record])
        #expect(machine.handle(.takeRecorded(t.id)) == [])
        #expect(machine.handle(look(1600)) == [.fetchTicket(issueNew: true)])
    }

    @Test func aFaultBeforeTheCutPrintsTheTicketAgainAfterClearingTheBuffer() {
        var machine = Machine(settings: .init())
        let t = ticket(1)
        _ = machine.handle(look(0))
        _ = machine.handle(.ticket(t, .notSent, present: nil, at: .zero, time: base))
        #expect(machine.handle(.sent(t.id, canPrint: false, presence: [false], at: .zero)) == [.interrupted(t.id)])
        #expect(machine.handle(look(100, canPrint: false)) == [.pause(.milliseconds(100))])
        // The lost connection in between does not make it forget that the buffer must be cleared.
        _ = machine.handle(.connectionLost)
        #expect(machine.handle(look(5000)) == [.fetchTicket(issueNew: true)])
        #expect(
            machine.handle(.ticket(t, .notSent, present: nil, at: .seconds(5), time: base))
                == [.print(t.id, clearBufferFirst: true)]
        )
        _ = machine.handle(.sent(t.id, canPrint: true, presence: [true], at: .seconds(5)))
        // The next ticket's print starts clean.
        _ = machine.handle(look(5100, take: true))
        _ = machine.handle(.takeRecorded(t.id))
        let next = ticket(2)
        _ = machine.handle(look(5200))
        #expect(
            machine.handle(.ticket(next, .notSent, present: nil, at: .seconds(5), time: base))
                == [.print(next.id, clearBufferFirst: false)]
        )
    }

    @Test func aFaultAfterTheCutMeansPrinted() {
        var machine = Machine(settings: .init())
        let t = ticket(1)
        _ = machine.handle(look(0))
        _ = machine.handle(.ticket(t, .notSent, present: nil, at: .zero, time: base))
        #expect(
            machine.handle(.sent(t.id, canPrint: false, presence: [false, true], at: .zero))
                == [.markPrinted(t.id), .presented(t.id, printedNow: true)]
        )
        // Paper out, and the roll's last ticket is taken: recorded; nothing printed until paper is back.
        #expect(machine.handle(look(100, canPrint: false, presence: [false])) == [.pause(.milliseconds(100))])
        #expect(
            machine.handle(look(200, canPrint: false, presence: [false]))
                == [.recordTake(t.id, at: base + .milliseconds(200), whileAway: false)]
        )
        _ = machine.handle(.takeRecorded(t.id))
        #expect(machine.handle(look(300, canPrint: false)) == [.pause(.milliseconds(100))])
    }

    @Test func aTicketSentBeforeARestartIsLookedForNotPrintedAgain() {
        let t = ticket(1)
        var still = Machine(settings: .init())
        _ = still.handle(look(0))
        #expect(
            still.handle(.ticket(t, .sending, present: true, at: .zero, time: base))
                == [.markPrinted(t.id), .presented(t.id, printedNow: false)]
        )
        var confirmed = Machine(settings: .init())
        _ = confirmed.handle(look(0))
        #expect(
            confirmed.handle(.ticket(t, .printed, present: true, at: .zero, time: base))
                == [.presented(t.id, printedNow: false)]
        )
        var gone = Machine(settings: .init())
        _ = gone.handle(look(0))
        #expect(
            gone.handle(.ticket(t, .sending, present: false, at: .zero, time: base))
                == [.recordTake(t.id, at: base, whileAway: true)]
        )
        // A station that cannot see the ticket keeps it as printed.
        var blind = Machine(settings: .init(seesPresence: false))
        _ = blind.handle(look(0))
        #expect(
            blind.handle(.ticket(t, .printed, present: nil, at: .zero, time: base))
                == [.presented(t.id, printedNow: false)]
        )
    }

    @Test func aConnectionLostMidPrintIsLookedForWhenThePrinterIsBack() {
        var machine = Machine(settings: .init())
        let t = ticket(1)
        _ = machine.handle(look(0))
        _ = machine.handle(.ticket(t, .notSent, present: nil, at: .zero, time: base))
        _ = machine.handle(.connectionLost)
        #expect(machine.handle(.sent(t.id, canPrint: true, presence: [true], at: .zero)) == [])
        #expect(machine.handle(look(2000)) == [.fetchTicket(issueNew: true)])
        #expect(
            machine.handle(.ticket(t, .sending, present: true, at: .seconds(2), time: base))
                == [.markPrinted(t.id), .presented(t.id, printedNow: false)]
        )
    }

    @Test func statusPushedMeansNoPauseBetweenLooks() {
        let t = ticket(1)
        var machine = waiting(t, settings: .init(statusIsPushed: true))
        #expect(machine.handle(look(100, presence: [true])) == [])
        #expect(machine.handle(look(200, canPrint: false, presence: [true])) == [.pause(.milliseconds(100))])
    }

    @Test func anEarlierDaysTicketGoesBackInAndIsVoided() {
        let t = ticket(1, day: BusinessDay(number: today.number - 1))
        var machine = waiting(t)
        _ = machine.handle(.connected(canRetract: true))
        #expect(machine.handle(look(100, presence: [true])) == [.retract(t.id, .earlierDay)])
        #expect(machine.handle(.retracted(t.id, .retracted)) == [.void(t.id, .earlierDay)])
        #expect(machine.waitingTicket == nil)
        #expect(machine.handle(look(200)) == [.fetchTicket(issueNew: true)])
    }

    @Test func aPrinterThatCannotRetractKeepsTheTicket() {
        let t = ticket(1, day: BusinessDay(number: today.number - 1))
        var cannot = waiting(t)
        _ = cannot.handle(.connected(canRetract: false))
        #expect(cannot.handle(look(100, presence: [true])) == [.pause(.milliseconds(100))])
        // One that would not: not tried again for that ticket.
        var refused = waiting(t)
        _ = refused.handle(.connected(canRetract: true))
        _ = refused.handle(look(100, presence: [true]))
        #expect(refused.handle(.retracted(t.id, .kept)) == [])
        #expect(refused.handle(look(200, presence: [true])) == [.pause(.milliseconds(100))])
        #expect(refused.waitingTicket == t.id)
    }

    @Test func aTicketNobodyTookGoesBackInWhenItsTimeIsUp() {
        let t = ticket(1)
        var machine = waiting(t, settings: .init(retract: RetractRule(after: .seconds(60))))
        _ = machine.handle(.connected(canRetract: true))
        #expect(machine.handle(look(59_999, presence: [true])) == [.pause(.milliseconds(100))])
        #expect(machine.handle(look(60_000, presence: [true])) == [.retract(t.id, .notTaken)])
        // Taken just before the command: the sensor's next looks record it.
        #expect(machine.handle(.retracted(t.id, .notPresent)) == [])
        _ = machine.handle(look(60_100, presence: [false]))
        #expect(
            machine.handle(look(60_200, presence: [false]))
                == [.recordTake(t.id, at: base + .milliseconds(60_200), whileAway: false)]
        )
    }

    /// The ticket left the mouth as the presenter pulled, and the printer cannot tell a retract from a take: it
    /// is set aside (still valid, its holder admitted at the door), never voided.
    @Test func aTicketThatMayHaveBeenTakenAsItWasRetractedIsNeverVoided() {
        let t = ticket(1, day: BusinessDay(number: today.number - 1))
        var machine = waiting(t)
        _ = machine.handle(.connected(canRetract: true))
        #expect(machine.handle(look(100, presence: [true])) == [.retract(t.id, .earlierDay)])
        #expect(machine.handle(.retracted(t.id, .gone)) == [.setAside(t.id, .earlierDay)])
        #expect(machine.waitingTicket == nil)
        #expect(machine.handle(look(200)) == [.fetchTicket(issueNew: true)])
    }

    /// While the store hands out no tickets, the station asks only for one already in hand and then waits a
    /// second a look; when the window opens it issues the day's first.
    @Test func noNewTicketWhileTheStoreHandsOutNone() {
        var machine = Machine(settings: .init())
        #expect(machine.handle(look(0, handsOut: false)) == [.fetchTicket(issueNew: false)])
        #expect(machine.handle(.noTicket) == [.pause(.seconds(1))])
        #expect(machine.handle(look(1000, handsOut: false)) == [.pause(.seconds(1))])
        #expect(machine.handle(look(2000, handsOut: false)) == [.pause(.seconds(1))])
        #expect(machine.handle(look(3000)) == [.fetchTicket(issueNew: true)])
        // A ticket still in hand when the window closes is printed and presented as any other.
        var inHand = Machine(settings: .init())
        #expect(inHand.handle(look(0, handsOut: false)) == [.fetchTicket(issueNew: false)])
        let t = ticket(1)
        #expect(
            inHand.handle(.ticket(t, .printed, present: true, at: .zero, time: base)) == [
                .presented(t.id, printedNow: false)
            ]
        )
        // An answer that comes late, or twice, changes nothing.
        #expect(inHand.handle(.noTicket) == [])
    }

    /// Where the store stops issuing once the wait passes closing (``LastTickets``): the ticket waiting in the
    /// presenter goes back in (its holder would be called after closing), none is issued while it holds, and the
    /// station issues again when the line is short enough. A printer that cannot retract keeps the one it has.
    @Test func theWaitingTicketGoesBackInWhenTheWaitPassesClosing() {
        let t = ticket(1)
        var machine = waiting(t)
        _ = machine.handle(.connected(canRetract: true))
        #expect(machine.handle(look(100, presence: [true], pastClosing: true)) == [.retract(t.id, .pastClosing)])
        #expect(machine.handle(.retracted(t.id, .retracted)) == [.void(t.id, .pastClosing)])
        #expect(machine.handle(look(200, pastClosing: true)) == [.fetchTicket(issueNew: false)])
        #expect(machine.handle(.noTicket) == [.pause(.seconds(1))])
        #expect(machine.handle(look(1200, pastClosing: true)) == [.pause(.seconds(1))])
        #expect(machine.handle(look(2200)) == [.fetchTicket(issueNew: true)], "the line is short enough again")
        var cannot = waiting(t)
        _ = cannot.handle(.connected(canRetract: false))
        #expect(cannot.handle(look(100, presence: [true], pastClosing: true)) == [.pause(.milliseconds(100))])
        #expect(cannot.waitingTicket == t.id)
    }

    /// A ticket whose printed promise broke (``TicketPromise``) goes back in and a fresh one is printed — at most
    /// one per ``RetractRule/outdatedSpacing`` (10 s), so a burst of app tickets costs one ticket of paper.
    @Test func anOutdatedTicketGoesBackInAtMostOncePerSpacing() {
        let t = ticket(1)
        var machine = waiting(t)
        _ = machine.handle(.connected(canRetract: true))
        #expect(machine.handle(look(100, presence: [true])) == [.pause(.milliseconds(100))], "it holds")
        #expect(machine.handle(look(200, presence: [true], outdated: true)) == [.retract(t.id, .outdated)])
        #expect(machine.handle(.retracted(t.id, .retracted)) == [.void(t.id, .outdated)])
        #expect(machine.handle(look(300)) == [.fetchTicket(issueNew: true)], "a fresh one")
        let fresh = ticket(2)
        _ = machine.handle(.ticket(fresh, .notSent, present: nil, at: .milliseconds(300), time: base))
        _ = machine.handle(.sent(fresh.id, canPrint: true, presence: [true], at: .milliseconds(300)))
        // Outdated again 5 s later: kept until 10 s have passed since the last.
        #expect(machine.handle(look(5_300, presence: [true], outdated: true)) == [.pause(.milliseconds(100))])
        #expect(machine.handle(look(10_199, presence: [true], outdated: true)) == [.pause(.milliseconds(100))])
        #expect(machine.handle(look(10_200, presence: [true], outdated: true)) == [.retract(fresh.id, .outdated)])
    }

    @Test func noRetractWhileAFaultStopsPrinting() {
        let t = ticket(1, day: BusinessDay(number: today.number - 1))
        var machine = waiting(t)
        _ = machine.handle(.connected(canRetract: true))
        #expect(machine.handle(look(100, canPrint: false, presence: [true])) == [.pause(.milliseconds(100))])
    }

    // MARK: - A day of trouble

    @Test(arguments: 0..<40) func aDayOfTroubleCutsNoCodeTwiceAndRecordsEveryTakeOnce(seed: UInt64) {
        var day = TroubledDay(seed: seed, sees: seed % 4 != 3, canRetract: seed % 2 == 0)
        day.run(turns: 3000)
        #expect(day.cutTwice.isEmpty, "codes cut twice: \(day.cutTwice)")
        #expect(day.recordedTwice.isEmpty, "takes recorded twice: \(day.recordedTwice)")
        #expect(day.newTicketWhileATakeWasUnwritten == 0)
        #expect(
            day.handed.isSubset(of: day.recorded),
            "taken by a customer, never recorded: \(day.handed.subtracting(day.recorded))"
        )
        #expect(day.voided.isDisjoint(with: day.handed), "voided in a customer's hand")
        #expect(day.issuedWhileClosed == 0, "tickets issued while the store handed out none")
        #expect(day.recorded.count > 50, "the day made progress (\(day.recorded.count) takes)")
    }
}

/// A simulated printer and store around the machine: faults before and after the cut, lost connections
/// (sometimes after the cut), storage that refuses a take now and then, customers grabbing tickets at random
/// moments (also as the presenter pulls one back, which the printer cannot always tell), a printer that
/// retracts, and the store's ticket window closing and opening.
struct TroubledDay {
    typealias Machine = PrinterStationMachine
    var random: SplitMix64
    var machine: Machine
    let base = Timestamp(milliseconds: 1_800_000_000_000)
    let today = BusinessDay(number: 20_000)
    var now: Duration = .zero

    // The store.
    var states: [TicketID: TicketPrintState] = [:]
    var waitingInStore: TicketID?
    var nextNumber: Int64 = 1
    // The printer.
    var canRetract: Bool
    var faulted = false
    var connected = true
    var inPresenter: TicketID?
    var cut: Set<TicketID> = []
    // What happened.
    var cutTwice: [TicketID] = []
    var recorded: Set<TicketID> = []
    var recordedTwice: [TicketID] = []
    var handed: Set<TicketID> = []
    var voided: Set<TicketID> = []
    var setAside: Set<TicketID> = []
    var unwrittenTake = false
    var newTicketWhileATakeWasUnwritten = 0
    /// The store hands out tickets (its window is open).
    var handsOut = true
    var issuedWhileClosed = 0

    init(seed: UInt64, sees: Bool, canRetract: Bool) {
        random = SplitMix64(seed: seed)
        self.canRetract = canRetract
        machine = Machine(
            settings: .init(seesPresence: sees, retract: RetractRule(after: canRetract ? .seconds(20) : nil))
        )
        _ = machine.handle(.connected(canRetract: canRetract))
    }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }

    mutating func run(turns: Int) {
        for _ in 0..<turns {
            now += .milliseconds(Int64.random(in: 5...400, using: &random))
            if let id = inPresenter, chance(0.3) {  // a customer takes it
                inPresenter = nil
                handed.insert(id)
            }
            if chance(0.03) { faulted.toggle() }
            if chance(0.01) { handsOut.toggle() }
            if faulted && chance(0.2) { faulted = false }
            if !connected {
                connected = chance(0.5)
                if connected { perform(machine.handle(.connected(canRetract: canRetract))) }
                continue
            }
            let sees = machine.settings.seesPresence
            let presence = sees && machine.waitingTicket != nil ? [inPresenter != nil] : []
            let look = Machine.Look(
                at: now,
                time: base + now,
                today: today,
                canPrint: !faulted,
                presence: presence,
                takeRequested: !sees && inPresenter == nil && machine.waitingTicket != nil,
                handsOut: handsOut
            )
            perform(machine.handle(.looked(look)))
        }
        // Storage comes back, the printer too: every take still owed is written.
        faulted = false
        connected = true
        for _ in 0..<5 {
            now += .milliseconds(100)
            let look = Machine.Look(
                at: now,
                time: base + now,
                today: today,
                canPrint: true,
                presence: [],
                handsOut: handsOut
            )
            perform(machine.handle(.looked(look)))
        }
    }

    mutating func perform(_ actions: [Machine.Action]) {
        for action in actions { perform(action) }
    }

    mutating func perform(_ action: Machine.Action) {
        switch action {
        case .fetchTicket(let issueNew):
            if unwrittenTake { newTicketWhileATakeWasUnwritten += 1 }
            if !issueNew && waitingInStore == nil {
                perform(machine.handle(.noTicket))
                return
            }
            if !handsOut && waitingInStore == nil { issuedWhileClosed += 1 }
            let id = waitingInStore ?? issue()
            let state = states[id]!
            let present: Bool? = state == .notSent || !machine.settings.seesPresence ? nil : inPresenter == id
            let ticket = Machine.Ticket(id: id, issuedOn: today)
            perform(machine.handle(.ticket(ticket, state, present: present, at: now, time: base + now)))
        case .print(let id, _):
            states[id] = .sending
            let outcome = Int.random(in: 0..<10, using: &random)
            if outcome < 8 || outcome == 9 && chance(0.5) {  // it reached the cut
                if cut.contains(id) { cutTwice.append(id) }
                cut.insert(id)
                inPresenter = id
            }
            switch outcome {
            case 0..<7:
                perform(machine.handle(.sent(id, canPrint: true, presence: [true], at: now)))
            case 7:
                faulted = true  // the roll ended at the cut
                perform(machine.handle(.sent(id, canPrint: false, presence: [true], at: now)))
            case 8:
                faulted = true  // paper out mid-ticket
                perform(machine.handle(.sent(id, canPrint: false, presence: [], at: now)))
            default:
                connected = false
                perform(machine.handle(.connectionLost))
            }
        case .markPrinted(let id):
            states[id] = .printed
        case .presented:
            break
        case .interrupted(let id):
            states[id] = .notSent
        case .recordTake(let id, _, _):
            if chance(0.15) {  // storage full: not written, asked again
                unwrittenTake = true
                return
            }
            unwrittenTake = false
            if recorded.contains(id) { recordedTwice.append(id) }
            recorded.insert(id)
            if inPresenter == id {  // the control API's take (a station that cannot see): the customer has it
                inPresenter = nil
                handed.insert(id)
            }
            waitingInStore = nil
            perform(machine.handle(.takeRecorded(id)))
        case .retract(let id, _):
            var outcome: Machine.RetractOutcome = inPresenter == id ? (chance(0.8) ? .retracted : .kept) : .notPresent
            if outcome == .retracted {
                inPresenter = nil
                // A printer that cannot tell a retracted ticket from a taken one; sometimes a customer took it.
                if chance(0.5) {
                    outcome = .gone
                    if chance(0.5) { handed.insert(id) }
                }
            }
            perform(machine.handle(.retracted(id, outcome)))
        case .void(let id, _):
            voided.insert(id)
            waitingInStore = nil
        case .setAside(let id, _):
            setAside.insert(id)
            waitingInStore = nil
        case .pause(let duration):
            now += duration
        }
    }

    mutating func issue() -> TicketID {
        let id = TicketID.v7(at: base + .milliseconds(nextNumber))
        nextNumber += 1
        states[id] = .notSent
        waitingInStore = id
        return id
    }
}
