import Foundation
import ReservationCore
import ReservationStorage

/// Whose write transaction a change runs in, and who makes it: the owner (their
/// reservations, history, change feed and idempotency keys), the actor each
/// history entry names, and, when the actor acts on another user's reservation,
/// the rule of where they may (checked again inside the transaction, against
/// the records as locked there).
struct Acting: Sendable {
    let owner: UserID
    let actor: HistoryActor?
    /// Acting on another user's reservations: whether the actor manages a landmark; nil for one's own.
    let manages: (@Sendable (Landmark.ID) -> Bool)?
}

extension AuthenticatedContext {
    /// Acting on one's own reservations.
    var acting: Acting { Acting(owner: user, actor: actor, manages: nil) }
}

extension RouteBackend {
    /// Who may act on reservation `id`, decided here once for every route of one reservation (GET,
    /// PATCH, DELETE, confirm): its owner; on another user's, the staff of its landmark and admins
    /// (`AuthenticatedContext.mayManage`), as the owner, the change in the owner's history and feed
    /// with the actor named. To anyone else another user's reservation does not exist (404, as
    /// before roles): a member never learns that an id is taken.
    func acting(on id: Reservation.ID, _ context: AuthenticatedContext) async throws -> Acting {
        guard context.access.role != .member, let found = try await store.locate(id), found.owner != context.user
        else { return context.acting }
        guard let landmark = found.record.landmarkId.flatMap(Landmark.ID.init), context.mayManage(landmark) else {
            throw APIError.notFound(id)
        }
        let access = context.access
        return Acting(owner: found.owner, actor: context.actor, manages: { access.manages($0) })
    }
}

extension RouteBackend {
    /// Who may act on the reservations `ids` of one cancel or confirm of several: as `acting(on:)`
    /// for one, for all of them at once. The ids the caller may act on (their own; another user's at
    /// a landmark they manage) must be one user's, as a change is made in one owner's transaction;
    /// ids of several users are refused (400), the others' are not found, as for one.
    func acting(onAll ids: [Reservation.ID], _ context: AuthenticatedContext) async throws -> Acting {
        guard context.access.role != .member else { return context.acting }
        var owners: [UserID: Reservation.ID] = [:]
        for id in ids {
            guard let found = try await store.locate(id) else { continue }
            let managed = found.record.landmarkId.flatMap(Landmark.ID.init).map(context.mayManage) ?? false
            if found.owner == context.user || managed { owners[found.owner] = owners[found.owner] ?? id }
        }
        guard owners.count <= 1 else {
            throw APIError(
                .badRequest, .invalidRequest,
                "these reservations are \(owners.count) users': change each user's reservations in a request of its own"
            )
        }
        guard let (_, id) = owners.first else { return context.acting }
        return try await acting(on: id, context)
    }
}

/// A rule's transaction as an actor runs it (`RouteBackend.write`): every entry
/// the rule appends names the actor; acting on another user's reservations, only
/// those at landmarks the actor manages are found (the rest are absent, so 404,
/// also when the owner moved one away since `acting(on:)` looked), and none may
/// be moved to a landmark the actor does not manage (403). The system's entries
/// (`updateAny`: promotions, expiries) name no actor; a rule's changes of other users'
/// reservations through it (a closure's cancels) do.
final class ActingTransaction: BookingTransaction {
    private let base: any BookingTransaction
    private let acting: Acting

    init(_ base: any BookingTransaction, _ acting: Acting) {
        self.base = base
        self.acting = acting
    }

    var catalog: LandmarkCatalog { base.catalog }

    func lockHistory(exclusive: Bool) async throws { try await base.lockHistory(exclusive: exclusive) }

    func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation] {
        let found = try await base.recordsForUpdate(ids)
        guard let manages = acting.manages else { return found }
        return found.filter { _, stored in stored.record.landmarkId.flatMap(Landmark.ID.init).map(manages) ?? false }
    }

    func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID> { try await base.takenIDs(ids) }

    func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        try await base.booked(days, at: now)
    }

    func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]] {
        try await base.waitlisted(days)
    }

    func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation] {
        try await base.dueHolds(on: days, at: now, limit: limit)
    }

    func liveHolds(at now: Date) async throws -> Int { try await base.liveHolds(at: now) }

    /// Another user's reservations changed by a rule (a day closed: `Booking.changeDays`) name the
    /// actor too; the system's own changes (a promotion, an expiry) name none.
    func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws {
        guard let actor = acting.actor else { return try await base.updateAny(reservations, entries: entries) }
        try await base.updateAny(
            reservations,
            entries: entries.map { entry in
                guard !entry.change.isSystem else { return entry }
                var entry = entry
                entry.actor = actor
                return entry
            })
    }

    func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule] { try await base.dayRules(days) }

    func setDayRules(_ rules: [DayRule]) async throws { try await base.setDayRules(rules) }

    func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]] {
        try await base.takingPlaces(days, at: now)
    }

    func insert(_ reservations: [Reservation]) async throws { try await base.insert(reservations) }

    func update(_ reservations: [Reservation]) async throws {
        if let manages = acting.manages, let moved = reservations.first(where: { !manages($0.landmark.id) }) {
            throw APIError(
                .forbidden, .forbidden,
                "you may not move another user's reservation to \(moved.landmark.name): you do not manage it")
        }
        try await base.update(reservations)
    }

    func append(_ entries: [HistoryEntry]) async throws {
        guard let actor = acting.actor else { return try await base.append(entries) }
        try await base.append(
            entries.map { entry in
                var entry = entry
                entry.actor = actor
                return entry
            })
    }

    func commandToUndo() async throws -> [HistoryEntry] { try await base.commandToUndo() }

    func undosSinceLastCommand() async throws -> [HistoryEntry] { try await base.undosSinceLastCommand() }
}
