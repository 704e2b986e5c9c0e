import Crypto
import Foundation
import KioskCore
import ServiceSupport
import SyncWire

/// Where clup-server keeps what must outlive it: stores, manager accounts and sessions, enrolled kiosks and
/// their keys, the server's own secrets, holders of app tickets, and every store's event log with its per-store
/// sequence numbers.
///
/// Two implementations: ``SQLiteStorage`` (one file, one process: a single store, the demo) and PostgreSQL (a
/// chain: any number of replicas share one database). Both keep the same promises:
/// - a store's log is gap-free and strictly increasing, whoever appends to it;
/// - an append is idempotent by event id (a retry gets the first sequence back);
/// - a ticket number is never given twice in a business day;
/// - `onCommit` callbacks of one store run after their commit, in sequence order, so in-memory state follows
///   the log in exactly its order.
public protocol ServerStorage: Sendable {
    /// What the server takes as now, everywhere (``WallClock/system`` but in tests).
    var clock: WallClock { get }

    // MARK: Stores

    /// Registers a store and its manager account in one transaction. A store with the same name and address
    /// is refused (409), as is a manager name already taken.
    func register(
        _ profile: StoreProfile,
        manager: String,
        passwordHash: PasswordHash,
        at now: Timestamp
    )
        async throws -> StoreRecord
    /// Stores a store's changed profile (its name and address stay as registered) and appends `events` — the
    /// capacity change it makes — in the same transaction: after a crash both are there or neither. The events
    /// are appended and `onCommit` runs as ``append(_:store:onCommit:)`` says.
    func setProfile(
        _ profile: StoreProfile,
        store: StoreID,
        appending events: [StoreEvent],
        onCommit: @escaping CommitHook
    ) async throws -> [AppendResult]
    /// Every store, oldest first.
    func stores() async throws -> [StoreRecord]
    /// One store, or nil when there is no such store.
    func store(_ id: StoreID) async throws -> StoreRecord?

    // MARK: Managers

    /// A manager's stored password and store.
    func manager(_ username: String) async throws -> (store: StoreID, password: PasswordHash)?
    /// Opens a session: a random token (only its hash is kept) that expires.
    func openSession(username: String, expires: Timestamp) async throws -> String
    /// The manager and store of a session token that has not expired.
    func session(_ token: String, at now: Timestamp) async throws -> (username: String, store: StoreID)?
    /// Ends a session: its token stops working at once. False when there was no such session.
    func closeSession(_ token: String) async throws -> Bool
    /// Ends the system manager's console session `token` (signed, not stored while it lasts): kept as ended
    /// until it would have expired.
    func endAdminSession(_ token: String, expires: Timestamp) async throws
    /// Whether the system manager's console session `token` was ended.
    func adminSessionEnded(_ token: String) async throws -> Bool

    // MARK: Kiosks

    /// Enrolls a kiosk in a role: returns its credential (shown once; only its SHA-256 is kept). Enrolling the
    /// same device id again replaces its credential and role and forgets its key.
    func enroll(device: DeviceID, store: StoreID, role: KioskRole, at now: Timestamp) async throws -> String
    /// The kiosks of `store`, or of every store (nil), by store and id.
    func devices(store: StoreID?) async throws -> [EnrolledDevice]
    /// Revokes a kiosk: its credential stops working and its key leaves the key ring. False when it was not
    /// enrolled.
    func revoke(device: DeviceID, store: StoreID) async throws -> Bool
    /// The device a credential belongs to, and its role.
    func device(credential: String) async throws -> KioskGrant?
    /// Registers the public key a device signs its tickets with.
    func setKey(_ key: Curve25519.Signing.PublicKey, device: DeviceID, store: StoreID) async throws
    /// Every enrolled device's registered key, by device id.
    func keyRing(store: StoreID) async throws -> [(device: DeviceID, key: Curve25519.Signing.PublicKey)]

    // MARK: Pairing (``Pairing``: the rules are its own; storage keeps records)

    /// Keeps a new pairing, first removing those that ended before `now`. Throws when its user code is taken
    /// by a live pairing (the caller draws another).
    func addPairing(_ pairing: Pairing, at now: Timestamp) async throws
    /// Live pairings (not yet ended at `now`): all of them, and those asked from `address`.
    func pairingCounts(address: String, at now: Timestamp) async throws -> (all: Int, fromAddress: Int)
    /// The pairing of a user code (normalized) or of a device code's hash.
    func pairing(userCode: String) async throws -> Pairing?
    func pairing(deviceCodeHash: Data) async throws -> Pairing?
    /// Writes `pairing` over its record if that is still in `state`; false when another request changed it first.
    func replacePairing(_ pairing: Pairing, whileIn state: Pairing.State) async throws -> Bool

    // MARK: Event log

    /// Appends events to a store's log in one transaction, giving each new one the store's next sequence
    /// number; an event already there (same id) is not appended again. `onCommit` runs after the commit with
    /// the events that are new, in sequence order. A `ticketIssued` under a ticket id another store issued is
    /// refused (``StorageRefusal/ticketOfAnotherStore(_:index:)``), checked by the write itself
    /// (``IssuedTickets``).
    func append(
        _ events: [StoreEvent],
        store: StoreID,
        onCommit: @escaping CommitHook
    )
        async throws -> [AppendResult]
    /// The store's log after `sequence`, at most `limit` events, in order.
    func events(store: StoreID, after sequence: Int64, limit: Int) async throws -> [StoreEvent]
    /// The events that happened from `start` up to `end` (milliseconds since 1970), in log order.
    func events(store: StoreID, from start: Int64, to end: Int64) async throws -> [StoreEvent]
    /// Which of `ids` the store's log holds already (a kiosk's retry of a push whose answer it lost).
    func knownEvents(_ ids: [EventID], store: StoreID) async throws -> Set<EventID>
    /// The latest arrival the server stamped on one of a kiosk's late events.
    func lastReceivedAt(store: StoreID, device: DeviceID) async throws -> Timestamp?

    // MARK: Snapshots

    /// Keeps a store's live state as of its log's `sequence` (opaque bytes: ``StoreSnapshot``), replacing the
    /// one kept before unless that one is of a later sequence, so that a start folds only the events after it.
    func saveSnapshot(store: StoreID, sequence: Int64, data: Data) async throws
    /// The store's last kept snapshot, if any.
    func snapshot(store: StoreID) async throws -> (sequence: Int64, data: Data)?
    /// Removes the store's events that happened before `time` and are of sequence `sequence` or before (kept
    /// in a snapshot), a batch at a time so that writers are never held long; how many were removed.
    func removeEvents(store: StoreID, before time: Timestamp, through sequence: Int64) async throws -> Int

    // MARK: Wait estimates

    /// Keeps the stores' wait models that the replica holding the duties' lease learnt, for the other
    /// replicas (which read them when told, instead of reading every store's log again). SQLite (one process)
    /// keeps nothing: the model lives in its memory.
    func saveWaitModels(_ models: [StoreID: WaitModel]) async throws
    /// The wait models kept by ``saveWaitModels(_:)`` (one that no longer reads is left out: learnt again).
    func waitModels() async throws -> [StoreID: WaitModel]

    // MARK: App tickets and bookings

    /// Issues an app ticket or a booking: reserves the next number of its business day and prefix, and writes
    /// the ticket ``ServerIssue/made(number:)`` makes of it (its `ticketIssued` event) and who holds it, in one
    /// transaction: a number is never given twice. `check` runs first, once every earlier event of the store is
    /// applied in memory, and may refuse; so may the rule (``TicketNumbersUsedUp``).
    func issue(_ order: IssueOrder, onCommit: @escaping CommitHook) async throws -> IssuedTicket
    /// Holders of the tickets issued since `since`.
    func holders(since: Timestamp) async throws -> [(TicketID, Holder)]
    /// Forgets which holder took the tickets and bookings issued before `time`; how many rows went.
    func removeHolders(issuedBefore time: Timestamp) async throws -> Int
    /// The server's secret `name`: made on first use, then the same for every start and every replica.
    func serverKey(_ name: String) async throws -> SymmetricKey

    // MARK: Web Push subscriptions

    /// Keeps `subscription` for its ticket (a ticket has one: a new one replaces the old).
    func savePush(_ subscription: PushSubscription) async throws
    /// Forgets the ticket's subscription; whether there was one.
    func removePush(ticket: TicketID) async throws -> Bool
    /// Every subscription kept.
    func pushSubscriptions() async throws -> [PushSubscription]
}

extension ServerStorage {
    /// The store's log after `sequence`, at most 1,000 events.
    public func events(store: StoreID, after sequence: Int64) async throws -> [StoreEvent] {
        try await events(store: store, after: sequence, limit: 1000)
    }
}

/// A registered store as the server keeps it.
public struct StoreRecord: Sendable {
    public var id: StoreID
    public var profile: StoreProfile
    /// Signs the codes of the store's app tickets and bookings (the server is one of the store's devices).
    public var signer: TicketSigner
    public var nextSequence: Int64
}

/// What happened to one appended event.
public struct AppendResult: Sendable, Codable, Equatable {
    public var id: EventID
    public var sequence: Int64
    /// False when the event was already in the log (a retry): its first sequence is returned.
    public var new: Bool
}

/// A ticket the server issued for the app or a booking, with the QR text the app shows.
/// An app ticket or a booking to issue (``ServerStorage/issue(_:onCommit:)``): the rule that makes it, who will
/// hold it, and what must still hold when its number is taken.
public struct IssueOrder: Sendable {
    public var rule: ServerIssue
    public var holder: Holder?
    public var check: IssueCheck?

    public init(_ rule: ServerIssue, holder: Holder?, check: IssueCheck?) {
        self.rule = rule
        self.holder = holder
        self.check = check
    }

    var prefix: String { rule.prefix }
    var day: Int64 { rule.day.number }
    var now: Timestamp { rule.at }
}

/// A ticket storage issued, and its event's place in the store's log.
public struct IssuedTicket: Sendable {
    public var ticket: Ticket
    public var sequence: Int64
}

public struct AppTicket: Sendable {
    public var ticket: Ticket
    public var qr: String
    public var sequence: Int64
    /// The wait it was told (an app ticket), as its event keeps it.
    public var told: WaitRange?

    public init(ticket: Ticket, qr: String, sequence: Int64, told: WaitRange? = nil) {
        self.ticket = ticket
        self.qr = qr
        self.sequence = sequence
        self.told = told
    }
}

/// Runs right after a commit, with the events it appended (in the writer's order): how the logs in memory
/// follow the database.
public typealias CommitHook = @Sendable ([StoreEvent]) -> Void
/// Runs on the writer before an issue, once every earlier event of the store is applied in memory; throws to
/// refuse it (a slot that filled meanwhile).
public typealias IssueCheck = @Sendable () throws -> Void

/// What storage refuses to write. Storage knows no HTTP: the routes answer these (``Refusal/init(refusal:)``).
public enum StorageRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// A store of this name at this address is registered already.
    case storeRegistered(name: String)
    /// A manager has this user name already.
    case managerNameTaken(String)
    /// The append's event at `index` issues a ticket id that another store issued (``IssuedTickets``).
    case ticketOfAnotherStore(TicketID, index: Int)

    public var description: String {
        switch self {
        case .storeRegistered(let name): "a store named '\(name)' at this address is already registered"
        case .managerNameTaken(let name): "the manager name '\(name)' is taken"
        case .ticketOfAnotherStore(let ticket, _):
            "ticket id \(ticket) is in use: a kiosk makes a new id (UUIDv7) for each ticket it prints"
        }
    }
}

/// Stored data that cannot be read back (a damaged row), or a store that does not exist.
public struct StorageFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// A kiosk as its store's manager sees it.
/// What a kiosk credential stands for: one device of one store, in one role.
public struct KioskGrant: Sendable, Hashable {
    public var store: StoreID
    public var device: DeviceID
    public var role: KioskRole
}

public struct EnrolledDevice: Codable, Sendable, Equatable {
    public var store: StoreID
    public var device: DeviceID
    /// What it is at the entrance (what its credential may write).
    public var role: KioskRole
    public var enrolledAt: Timestamp
    /// The id of the key it signs tickets with, once it registered one.
    public var keyId: String?
    /// When it last called this server (not stored, nor what follows: since the server started).
    public var lastContact: Timestamp?
    /// The sync protocol of its last request (``SyncProtocol``).
    public var syncProtocol: Int?
    /// How it said it is, in its last report.
    var health: KioskHealth?
    /// Its clock less this server's at its last report, in whole seconds.
    var clockOffsetSeconds: Int?
    /// What needs a person (``KioskProblem``), worst first.
    var problems: [KioskProblem] = []

    /// ``clockOffsetSeconds`` as a duration.
    var clockOffset: Duration? { clockOffsetSeconds.map { .seconds($0) } }

    init(store: StoreID, device: DeviceID, role: KioskRole, enrolledAt: Timestamp, keyId: String? = nil) {
        self.store = store
        self.device = device
        self.role = role
        self.enrolledAt = enrolledAt
        self.keyId = keyId
    }
}
