import Foundation

/// A checked request for a new reservation. The landmark stays as the user
/// gave it (id, unique id prefix or name): the backend resolves it against its
/// own catalog, inside the same locked step that books it.
public struct NewReservation: Sendable, Hashable {
    public let landmark: String
    public let date: Date
    public let partySize: Int
    public let status: Reservation.Status
    /// Free text to keep with it; nil (or empty) for none.
    public let note: String?
    /// Seconds to hold the places for (status `held` until then); nil for a booking.
    public let hold: Int?
    /// Whether to join the day's waitlist when it is full, instead of being refused.
    public let waitlist: Bool
    /// The series it is booked in (`reserve --every`); nil for a booking of its own.
    public let series: Reservation.SeriesID?
    /// The id the client made for the booking (an import's, an outbox's), so
    /// that sending it again books nothing twice; nil for the backend to make one.
    /// Set after the checks, which it takes no part in.
    public var id: Reservation.ID?

    /// How long a hold may be: 1 s to 24 h.
    public static let holdSeconds: ClosedRange<Int> = 1...86_400

    /// Checks the rules that need no backend: a future date, a party of at
    /// least one, a starting status of pending or confirmed, a note of at most
    /// `Reservation.noteLimit`, a hold from 1 s to 24 h and not with the waitlist.
    public init(
        landmark: String, date: Date, partySize: Int, status: Reservation.Status = .confirmed, note: String? = nil,
        hold: Int? = nil, waitlist: Bool = false, series: Reservation.SeriesID? = nil, now: Date
    ) throws(ReservationError) {
        guard Reservation.partySizes.contains(partySize) else { throw .invalidPartySize(partySize) }
        guard date > now else { throw .dateInPast(date) }
        guard Reservation.Status.initial.contains(status) else { throw .invalidInitialStatus(status.rawValue) }
        if let note { try Reservation.checkNewNote(note) }
        if let hold, !Self.holdSeconds.contains(hold) { throw .invalidHold("\(hold)s") }
        guard hold == nil || !waitlist else { throw .holdWithWaitlist }
        self.landmark = landmark
        self.date = date
        self.partySize = partySize
        self.status = status
        self.note = note?.isEmpty == true ? nil : note
        self.hold = hold
        self.waitlist = waitlist
        self.series = series
    }

    public init(
        landmarkID: Landmark.ID, date: Date, partySize: Int, status: Reservation.Status = .confirmed, now: Date
    ) throws(ReservationError) {
        try self.init(landmark: landmarkID.description, date: date, partySize: partySize, status: status, now: now)
    }

    /// Validates a wire request with the same rules and the one date parser;
    /// `defaultStatus` applies when the request names none.
    public init(_ request: CreateReservationRequest, defaultStatus: Reservation.Status = .confirmed, now: Date)
        throws(ReservationError)
    {
        let date = try DateTime.parseInput(request.date)
        var status = defaultStatus
        if let raw = request.status {
            guard let parsed = Reservation.Status(rawValue: raw) else { throw .invalidInitialStatus(raw) }
            status = parsed
        }
        var series: Reservation.SeriesID?
        if let raw = request.series {
            guard let parsed = Reservation.SeriesID(raw) else { throw .invalidRequestField("series", "must be a UUID") }
            series = parsed
        }
        try self.init(
            landmark: request.landmarkId, date: date, partySize: request.partySize, status: status, note: request.note,
            hold: request.hold, waitlist: request.waitlist ?? false, series: series, now: now)
        if let text = request.id {
            guard let id = Reservation.ID(text), text.count == 36 else {
                throw .invalidRequestField("id", "is not a UUID")
            }
            self.id = id
        }
    }

    /// The wire form of this request.
    public var request: CreateReservationRequest {
        CreateReservationRequest(
            landmarkId: landmark, date: DateTime.format(date), partySize: partySize, status: status.rawValue,
            note: note,
            hold: hold, waitlist: waitlist ? true : nil, id: id?.description, series: series?.description)
    }
}

/// The result of a cancel or a confirm: the reservation now, and its status before.
public struct StatusChange: Sendable, Hashable {
    public let reservation: Reservation
    public let previous: Reservation.Status

    public init(reservation: Reservation, previous: Reservation.Status) {
        self.reservation = reservation
        self.previous = previous
    }

    /// False when the reservation already had the requested status.
    public var changed: Bool { reservation.status != previous }
}

/// The one interface every command and the server talk to: a struct of
/// closures, with a factory per backend (`.jsonFile`, `.http`; the tests'
/// `.inMemory`, in their `MemoryEngine` target) and `.unimplemented` for tests
/// that override a single endpoint.
public struct ReservationService: Sendable {
    /// The landmarks of this backend.
    public var landmarks: @Sendable () async throws -> LandmarkCatalog
    /// Reads every reservation afresh: those that map, and those that do not.
    public var fetch: @Sendable () async throws -> ReservationSnapshot
    /// Books new reservations, all or none, and returns them in request order.
    /// When any request is refused nothing is booked and the error is
    /// `ReservationError.batchRejected`, listing every refused request.
    public var reserve: @Sendable ([NewReservation]) async throws -> [Reservation]
    /// Sets reservations' status to cancelled, keeping the records; all or none,
    /// in one change of the backend. Changes come back in the order of the ids.
    public var cancel: @Sendable ([Reservation.ID]) async throws -> [StatusChange]
    /// Moves pending reservations to confirmed, all or none, in one change of the
    /// backend (a cancelled one refuses the whole change). Changes come back in the order of the ids.
    public var confirm: @Sendable ([Reservation.ID]) async throws -> [StatusChange]
    /// Changes one active reservation's date, party size, landmark or note in one
    /// atomic step, capacity counted with its own places released; with an
    /// expected version, refuses (`versionMismatch`) when it changed since it was read.
    public var modify:
        @Sendable (_ id: Reservation.ID, _ change: ReservationChange, _ expectedVersion: Int?) async throws
            -> Reservation
    /// The history of changes, newest first: every reservation's, or only this
    /// one's; the newest `limit` (at least 1) when one is given.
    public var history: @Sendable (_ id: Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry]
    /// Another user's history, by name (`resv log --user`), as `history`: on a server, for an
    /// admin's token; nil where there are no other users (the file store).
    public var historyOf: HistoryOfUser? = nil

    /// Another user's history, newest first: their name, one reservation's or all, the newest `limit`.
    public typealias HistoryOfUser =
        @Sendable (_ user: String, _ id: Reservation.ID?, _ limit: Int?) async throws
        -> [HistoryEntry]
    /// `history` a change at a time, as it is read, so a long history is never
    /// held whole (a file's journal), until `visit` returns false; returns how
    /// many stored changes could not be read (lines of the journal another
    /// program wrote), which were skipped.
    public var eachChange:
        @Sendable (_ id: Reservation.ID?, _ limit: Int?, _ visit: (HistoryEntry) throws -> Bool) async throws -> Int
    /// Takes back this user's newest command not yet undone, as one atomic step
    /// of compensating, capacity-checked changes (`Undo`'s rules).
    public var undo: @Sendable () async throws -> UndoResult
    /// Takes back this user's newest undo while nothing else changed since, as
    /// one atomic step (`Booking.redo`'s rules).
    public var redo: @Sendable () async throws -> UndoResult = {
        throw ReservationError.unimplemented("ReservationService.redo")
    }
    /// Records how one reservation's visit went: `.checkedIn` or `.noShow`
    /// (`Booking.attend`'s rules), one change of the backend, undoable.
    public var attend: @Sendable (_ id: Reservation.ID, _ status: Reservation.Status) async throws -> Reservation = {
        _, _ in throw ReservationError.unimplemented("ReservationService.attend")
    }
    /// Every party at the landmark the user named (id, id prefix or name) on one day, across
    /// users (`DayManifest`): the backend resolves the landmark in its catalog, `day` then
    /// gives the day (it may depend on the landmark's zone). On a file store, every
    /// reservation of the store (its owner's); on a server, whoever manages the landmark may.
    public var manifest:
        @Sendable (_ landmark: String, _ day: @Sendable (Landmark) throws -> CalendarDay) async throws -> DayManifest =
            { _, _ in throw ReservationError.unimplemented("ReservationService.manifest") }
    /// Places taken and left per day at the landmark the user named (id, id
    /// prefix or name), counting every reservation the backend holds (on a
    /// server, every user's). The backend resolves the landmark against its own
    /// catalog, in the same read that counts; `days` then gives the range (it may
    /// depend on the landmark's zone) and may refuse it.
    public var availability:
        @Sendable (_ landmark: String, _ days: @Sendable (Landmark) throws -> [CalendarDay]) async throws
            -> LandmarkAvailability
    /// The user's changes after `after` (a cursor this backend gave), oldest
    /// first, waiting up to `wait` for one when there is none yet; with no
    /// cursor, none and the cursor of now (a feed starts from now).
    /// `invalidCursor` for a cursor not of this backend and user, `cursorExpired`
    /// for one older than the history kept.
    public var changes: @Sendable (_ after: String?, _ wait: Duration) async throws -> ChangePage = { _, _ in
        throw ReservationError.unimplemented("ReservationService.changes")
    }

    /// Sets a capacity for, closes or opens `days` at the landmark the user named, in one
    /// change of the backend (`Booking.changeDays`: refused, naming the places over,
    /// unless `overflow` says what happens to the parties over).
    public var changeDays:
        @Sendable (_ landmark: String, _ days: [CalendarDay], _ change: DayChange, _ overflow: Overflow) async throws
            -> DaysChanged = { _, _, _, _ in
                throw ReservationError.unimplemented("ReservationService.changeDays")
            }

    /// `availability` needs a clock (what takes places depends on the time):
    /// a backend that holds every reservation counts what one read holds
    /// (`Capacity.availability(of:on:reservations:at:)`).
    public init(
        landmarks: @escaping @Sendable () async throws -> LandmarkCatalog,
        fetch: @escaping @Sendable () async throws -> ReservationSnapshot,
        reserve: @escaping @Sendable ([NewReservation]) async throws -> [Reservation],
        cancel: @escaping @Sendable ([Reservation.ID]) async throws -> [StatusChange],
        confirm: @escaping @Sendable ([Reservation.ID]) async throws -> [StatusChange],
        modify:
            @escaping @Sendable (Reservation.ID, ReservationChange, Int?) async throws -> Reservation = { _, _, _ in
                throw ReservationError.unimplemented("ReservationService.modify")
            },
        history: @escaping @Sendable (Reservation.ID?, Int?) async throws -> [HistoryEntry] = { _, _ in
            throw ReservationError.unimplemented("ReservationService.history")
        },
        undo: @escaping @Sendable () async throws -> UndoResult = {
            throw ReservationError.unimplemented("ReservationService.undo")
        },
        availability: (
            @Sendable (_ landmark: String, _ days: @Sendable (Landmark) throws -> [CalendarDay]) async throws
                -> LandmarkAvailability
        )? = nil,
        eachChange: (
            @Sendable (Reservation.ID?, Int?, (HistoryEntry) throws -> Bool) async throws -> Int
        )? = nil
    ) {
        self.landmarks = landmarks
        self.fetch = fetch
        self.reserve = reserve
        self.cancel = cancel
        self.confirm = confirm
        self.modify = modify
        self.history = history
        self.eachChange =
            eachChange ?? { id, limit, visit in
                for entry in try await history(id, limit) where try !visit(entry) { break }
                return 0
            }
        self.undo = undo
        self.availability =
            availability ?? { _, _ in throw ReservationError.unimplemented("ReservationService.availability") }
    }
}

extension ReservationService {
    /// Books one reservation; a refusal is that request's own error.
    public func reserve(_ request: NewReservation) async throws -> Reservation {
        do {
            let created = try await reserve([request])
            guard created.count == 1 else { throw ReservationError.unexpectedCount(expected: 1, got: created.count) }
            return created[0]
        } catch ReservationError.batchRejected(let failures, _) where failures.count == 1 {
            throw failures[0].error
        }
    }

    /// Cancels one reservation.
    public func cancel(_ id: Reservation.ID) async throws -> StatusChange {
        let changes = try await cancel([id])
        guard changes.count == 1 else { throw ReservationError.unexpectedCount(expected: 1, got: changes.count) }
        return changes[0]
    }

    /// Confirms one reservation.
    public func confirm(_ id: Reservation.ID) async throws -> StatusChange {
        let changes = try await confirm([id])
        guard changes.count == 1 else { throw ReservationError.unexpectedCount(expected: 1, got: changes.count) }
        return changes[0]
    }

    /// Every endpoint throws `ReservationError.unimplemented` naming itself;
    /// tests start here and override what they exercise.
    public static let unimplemented = ReservationService(
        landmarks: { throw ReservationError.unimplemented("ReservationService.landmarks") },
        fetch: { throw ReservationError.unimplemented("ReservationService.fetch") },
        reserve: { _ in throw ReservationError.unimplemented("ReservationService.reserve") },
        cancel: { _ in throw ReservationError.unimplemented("ReservationService.cancel") },
        confirm: { _ in throw ReservationError.unimplemented("ReservationService.confirm") },
        modify: { _, _, _ in throw ReservationError.unimplemented("ReservationService.modify") },
        history: { _, _ in throw ReservationError.unimplemented("ReservationService.history") },
        undo: { throw ReservationError.unimplemented("ReservationService.undo") },
        availability: { _, _ in throw ReservationError.unimplemented("ReservationService.availability") }
    )
}

extension ChangePage {
    /// A feed over a store read in this process (a file, memory): `read`
    /// answers the changes after a sequence number and the newest number; when
    /// there are none, waits for `stamp` (what changes when the store is
    /// written) to change, looking every 100 ms, until `wait` has passed.
    /// `prepare` runs before each read (a file records the holds that have ended).
    /// `clock` is what it waits on.
    public static func polling<Stamp: Equatable>(
        after: String?, prefix: Character, wait: Duration, clock: WaitClock, stamp: () -> Stamp,
        prepare: () async throws -> Void = {},
        read: (Int?) throws -> (changes: [(sequence: Int, entry: HistoryEntry)], newest: Int)
    ) async throws -> ChangePage {
        let sequence = try after.map { text throws(ReservationError) in try ChangeCursor.sequence(text, prefix: prefix)
        }
        let deadline = clock.elapsed() + max(.zero, wait)
        while true {
            try await prepare()
            let seen = stamp()
            let (found, newest) = try read(sequence)
            guard let sequence else { return ChangePage(changes: [], cursor: ChangeCursor.make(prefix, newest)) }
            if !found.isEmpty || clock.elapsed() >= deadline {
                return ChangePage(
                    changes: found.map { FeedChange(cursor: ChangeCursor.make(prefix, $0.sequence), entry: $0.entry) },
                    cursor: ChangeCursor.make(prefix, found.last?.sequence ?? sequence))
            }
            while stamp() == seen, clock.elapsed() < deadline {
                try await clock.pause(min(.milliseconds(100), deadline - clock.elapsed()))
            }
        }
    }
}
