import Drivers
import KioskCore
import StationStore

extension DoorStation {
    /// Decides on one scanned text and records the decision; what the door shows comes back.
    @discardableResult
    public func decide(_ text: String, at now: Timestamp? = nil) throws -> AdmissionDecision {
        try decide([.scan(Scan(text: text))], at: now)[0]
    }

    /// Decides on scans that arrived together, in order, and records all decisions in one transaction
    /// before any is shown: a replay within the batch sees the admission before it. One fsync per batch is
    /// what keeps a flood of garbage from a broken scanner from slowing the door down.
    public func decide(_ scans: [ScanEvent], at now: Timestamp? = nil) throws -> [AdmissionDecision] {
        guard !scans.isEmpty else { return [] }
        try days.startDayIfDue()
        let now = now ?? clock.now()
        let calendar = days.schedule.calendar
        var ring = keyRing
        var state = queue.snapshot
        var events: [StoreEvent] = []
        var shown: [(decision: AdmissionDecision, message: String, code: String?)] = []
        for scan in scans {
            let claims: Result<TicketCodec.Claims, TicketCodec.DecodeError>
            let readerRefusal: ScanRefusal?
            switch scan {
            case .scan(let scan):
                var verified = verify(scan.text, ring)
                if case .failure(let why) = verified, [.notATicket, .malformed, .truncated].contains(why) {
                    // What the scanner typed, for the installer (a wrong keyboard layout shows here). A QR's
                    // text holds no personal data.
                    logger.info("scan is not a ticket", metadata: ["scanned": "\(scan.text.prefix(80))"])
                }
                if case .failure(.unknownKey) = verified, let fresh = reloadedKeyRing(now: now) {
                    ring = fresh
                    verified = verify(scan.text, ring)
                }
                claims = verified
                readerRefusal = nil
            case .refused(let refusal):
                claims = .failure(.notATicket)
                readerRefusal = refusal
            }
            let decision = Admission.decide(claims, queue: state, now: now, policy: policy)
            let ticketID = try? claims.get().ticket
            let made = Admission.record(decision, ticket: ticketID, queue: state, door: config.device.id)
                .map { log.event($0, at: now) }
            for e in made { state.apply(e) }
            events += made
            // The signed code names the ticket, also one the queue has forgotten (an earlier day's).
            let code = (try? claims.get()).map(\.code.description)
            shown.append((decision, readerRefusal?.description ?? decision.message(calendar, now: now), code))
        }
        do {
            try log.record(events)  // on disk before the customer sees the answer
            if status.storageFull {
                logger.notice("storage has room again: the door records decisions")
                publish {
                    $0.storageFull = false
                    $0.action = nil
                }
            }
        } catch  where LocalStore.isOutOfSpace(error) {
            // Refusals are safe to show unrecorded; an admission is not (the count inside, a second use of
            // the ticket): nobody is let in who is not on disk.
            let full = store.storageFull(error)
            if !status.storageFull {
                logger.error("storage full: the door cannot record decisions", metadata: ["action": "\(full)"])
            }
            shown = shown.map { entry in
                guard entry.decision.isAdmitted else { return entry }
                return (.notRecorded, AdmissionDecision.notRecorded.description, entry.code)
            }
            publish {
                $0.storageFull = true
                $0.action = full.description
            }
        }
        let admitted = shown.count { $0.decision.isAdmitted }
        publish {
            if let last = shown.last {
                $0.last = .init(
                    reason: last.decision.reason,
                    message: last.message,
                    code: last.code,
                    at: now.milliseconds
                )
            }
            $0.admitted += admitted
            $0.refused += shown.count - admitted
        }
        for (decision, message, code) in shown {
            metrics.scanned(decision.reason)
            logger.info(
                "door decision",
                metadata: ["decision": "\(decision.reason)", "code": "\(code ?? "-")", "message": "\(message)"]
            )
        }
        return shown.map(\.decision)
    }

    /// A ticket signed by a key the ring lacks: the key may have been trusted since (sync, `kioskd keys
    /// trust`). Re-reads the ring from disk, at most once a second so forged codes cannot load the disk.
    func reloadedKeyRing(now: Timestamp) -> KeyRing? {
        guard ringReloadDue(now: now) else { return nil }
        do {
            try reloadKeyRing()
        } catch {
            logger.error("cannot read the key ring", metadata: ["error": "\(error)"])
            return nil
        }
        return keyRing
    }

    /// Someone left (exit button, exit key). Occupancy never goes below zero: an exit with nobody inside is
    /// not recorded, and `false` says so.
    @discardableResult
    public func customerExited(at now: Timestamp? = nil) throws -> Bool {
        try days.startDayIfDue()
        let now = now ?? clock.now()
        guard queue.snapshot.countsExit(at: now) else {
            logger.notice("exit ignored: nobody is inside")
            return false
        }
        try log.record([.customerExited], at: now)
        publish { $0.exits += 1 }
        metrics.exited()
        return true
    }

    /// Writes `ticketExpired` for called tickets past the call window.
    func expireNoShows(at now: Timestamp? = nil) throws {
        let now = now ?? clock.now()
        let due = Admission.noShows(queue: queue.snapshot, now: now, policy: policy)
        guard !due.isEmpty else { return }
        do {
            try log.record(due.map { .ticketExpired($0) }, at: now, reserve: false)
        } catch  where LocalStore.isOutOfSpace(error) {
            return  // written on a later turn, once there is room (the reserve is kept for admissions)
        }
    }
}
