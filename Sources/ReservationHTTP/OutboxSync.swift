import Foundation
import ReservationCore

/// What a sync did: each item the server answered, in order, and why it stopped early, if it did.
public struct OutboxReport: Sendable {
    /// Sent and answered: the reservation as the server has it now.
    public var done: [(item: OutboxItem, reservation: Reservation?)] = []
    /// Refused by the server; kept in the outbox, with the code and message, until dropped.
    public var refused: [OutboxItem] = []
    /// Items this resv cannot read: kept, not sent.
    public var unreadable: [OutboxItem] = []
    /// Items still waiting to be sent (the sync stopped before them).
    public var waiting = 0
    /// Why the sync stopped before the end (the server unreachable, failing): nil when it went through.
    public var stopped: (any Error)?

    public var isEmpty: Bool { done.isEmpty && refused.isEmpty && unreadable.isEmpty && waiting == 0 }
}

extension HTTPCalls {
    /// Sends the outbox first, once per backend value, when it holds anything to
    /// send and the server may be asked (not `--offline`): any command that reaches
    /// the server does, and says what happened (`outboxReport`). Quiet when the
    /// server cannot be reached: the command itself says so.
    /// Calls side by side (a list's two reads) wait for the one sending, so neither reads
    /// the server before the outbox has reached it.
    func outboxFirst() async {
        // The sending's own reads (the catalog) go straight to the server.
        guard configuration.outbox != nil, case .fallback = configuration.cacheMode, !Self.sendingOutbox else {
            return
        }
        let sending = state.outboxSending.withLock { sending -> Task<Void, Never>? in
            if let sending { return sending }
            guard !state.outboxTried.withLock({ $0 }) else { return nil }
            let task = Task { await Self.$sendingOutbox.withValue(true) { await sendOutbox() } }
            sending = task
            return task
        }
        // Ctrl-C stops the sending too (what was sent stays sent; the rest stays queued).
        await withTaskCancellationHandler {
            await sending?.value
        } onCancel: {
            sending?.cancel()
        }
    }

    /// True inside the sending of the outbox.
    @TaskLocal static var sendingOutbox = false

    /// This server's outbox: the user's once the server has said whose the token is.
    var outbox: Outbox? { state.ownOutbox.withLock { $0 } ?? configuration.outbox }

    /// The outbox of the token's user (docs/contracts.md, "Offline"): when whose the token is
    /// is not written down yet, one `GET /whoami` learns it (the first time a token reaches
    /// its server while anything is queued or the command may queue), and what the token
    /// queued meanwhile moves into the user's outbox. Left the token's own when the server
    /// cannot say.
    func ownOutbox() async -> Outbox? {
        guard let outbox else { return nil }
        // Learned when it may matter: something is queued (under any token or user), or
        // this command may queue.
        guard outbox.user == nil, configuration.queue || outbox.anyQueued else { return outbox }
        guard let user = try? await configuration.whoami(transport: client.transport) else { return outbox }
        // Not moved (an outbox others may write, a folder that cannot be written): the token's own,
        // whose use then says why.
        guard let owned = try? await outbox.belonging(to: user) else { return outbox }
        state.ownOutbox.withLock { $0 = owned }
        return owned
    }

    private func sendOutbox() async {
        guard let outbox = await ownOutbox(),
            !state.outboxTried.withLock({ tried in
                defer { tried = true }
                return tried
            })
        else { return }
        do {
            guard try outbox.items().contains(where: { $0.kind != nil && $0.refusal == nil }) else { return }
            let report = try await sync(outbox)
            if case .unavailable? = report.stopped as? HTTPBackendError, report.done.isEmpty, report.refused.isEmpty {
                return
            }
            configuration.outboxReport(report)
        } catch {
            configuration.outboxFailure(error)
        }
    }

    /// `resv sync`: sends each readable, unrefused item in order, under the outbox's
    /// lock (a second sync waits, then finds them gone). Each is marked `sent`
    /// (durably) before it goes, removed once the server has answered it, or kept
    /// with the server's refusal; the first failure that is not an answer (the
    /// server unreachable, a 5xx after retries) stops the sync, the rest kept.
    /// Sent again after a kill, a booking is the same one (its id and key).
    func sync(_ outbox: Outbox) async throws -> OutboxReport {
        state.outboxTried.withLock { $0 = true }
        return try await Self.$sendingOutbox.withValue(true) { try await send(outbox) }
    }

    /// Items of different reservations are independent: a refused one is kept with its reason
    /// and the rest are sent. Items of one reservation are a chain, sent in order, each against
    /// the version the one before it made in this sync (a modify then a cancel ends cancelled);
    /// a refused item (now or at an earlier sync) holds back the rest of its own chain only.
    private func send(_ outbox: Outbox) async throws -> OutboxReport {
        try await outbox.update { items in
            var report = OutboxReport()
            /// The version each reservation's last item sent in this sync left it at.
            var produced: [String: Int] = [:]
            /// Reservations whose chain is held back by a refused item.
            var held: Set<String> = []
            var index = 0
            while index < items.count {
                let item = items[index]
                let chain = item.reservationID?.description ?? "item \(index)"
                guard let kind = item.kind else {
                    report.unreadable.append(item)
                    held.insert(chain)
                    index += 1
                    continue
                }
                guard item.refusal == nil else {
                    held.insert(chain)
                    index += 1
                    continue
                }
                if report.stopped != nil || held.contains(chain) {
                    report.waiting += 1
                    index += 1
                    continue
                }
                let before = item.sent
                if !before {
                    items[index].markSent()
                    try outbox.write(items)
                }
                let version = produced[chain] ?? items[index].version
                // Each item has the command's time of its own (RESV_REQUEST_TIMEOUT): a long outbox is
                // sent whole, however long all of it takes.
                let (outcome, arrived) = await CommandDeadline.$start.withValue(.now) {
                    await ArrivalTrace.tracing { try await send(items[index], kind, version: version) }
                }
                do {
                    switch try outcome.get() {
                    case .done(let reservation):
                        report.done.append((items[index], reservation))
                        if let reservation { produced[chain] = reservation.version }
                        items.remove(at: index)
                    case .refused(let code, let message):
                        items[index].refuse(code: code, message: message)
                        report.refused.append(items[index])
                        held.insert(chain)
                        index += 1
                    }
                    try outbox.write(items)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // Not sent after all (no connection): it may still be edited as unsent.
                    if !before, !arrived {
                        items[index].set("sent", nil)
                        try outbox.write(items)
                    }
                    report.stopped = error
                    report.waiting += 1
                    index += 1
                }
            }
            return report
        }
    }

    private enum Outcome {
        case done(Reservation?)
        case refused(String, String)
    }

    /// One item to the server, against `version` (its own, or what its chain's item before it
    /// made): its answer, or an error that stops the sync.
    private func send(_ item: OutboxItem, _ kind: OutboxItem.Kind, version: Int?) async throws -> Outcome {
        let catalog = try await catalog()
        guard let id = item.reservationID else { return .refused("invalidRequest", "no reservation id") }
        switch kind {
        case .reserve:
            let reply = try await client.send(
                "POST", "reservations", body: item.request, idempotencyKey: item.key ?? "resv-\(id)")
            guard reply.status == 200 || reply.status == 201 else { return refused(reply, "POST /reservations") }
            if let json = reply.json { configuration.cache?.writeThrough("reservations", [json]) }
            return .done(try reservation(reply.json, catalog))
        case .cancel, .confirm:
            let current = try await client.send("GET", "reservations/\(id)")
            guard current.status == 200, let json = current.json else {
                return refused(current, "GET /reservations/{id}")
            }
            let now = try reservation(json, catalog)
            if kind == .cancel, now.status == .cancelled { return .done(now) }
            if let version, now.version != version {
                if item.sent, kind == .confirm, now.status == .confirmed { return .done(now) }
                return .refused(
                    ErrorCode.versionMismatch.rawValue,
                    ReservationError.versionMismatch(id, expected: version, current: now.version).localizedDescription)
            }
            let changes = try await setStatus(kind == .cancel ? "cancel" : "confirm", [id], queueing: false)
            return .done(changes.first?.reservation)
        case .modify:
            guard let request = item.request else { return .refused("invalidRequest", "no change") }
            // Under the item's own key: sent again after a lost answer (or a kill), it is answered as
            // the first time. A chained version makes another request, so another key.
            let key = item.key ?? "resv-outbox-\(item.id)" + (version == item.version ? "" : "-v\(version ?? 0)")
            let reply = try await client.send(
                "PATCH", "reservations/\(id)", body: request,
                idempotencyKey: HeaderValue.isValid(key, longest: HeaderValue.longestKey) ? key : nil, ifMatch: version)
            if reply.status == 412, item.sent {
                // Sent before and killed before its answer was kept: it may be this change.
                let current = try await client.send("GET", "reservations/\(id)")
                if current.status == 200, let json = current.json, Self.has(request, json) {
                    return .done(try reservation(json, catalog))
                }
            }
            guard reply.status == 200 else { return refused(reply, "PATCH /reservations/{id}") }
            if let json = reply.json { configuration.cache?.writeThrough("reservations", [json]) }
            return .done(try reservation(reply.json, catalog))
        }
    }

    /// A 4xx answer: a refusal to keep, with the server's code and reason.
    private func refused(_ reply: ServerReply, _ what: String) -> Outcome {
        let code = if case .string(let code)? = reply.json?["code"] { code } else { "refused" }
        return .refused(code, reply.reason ?? "\(what) was refused (\(reply.status))")
    }

    /// Whether a record already has every field of a modify's body.
    private static func has(_ change: JSONValue, _ record: JSONValue) -> Bool {
        guard case .object(let fields) = change else { return false }
        return fields.allSatisfy { field, value in
            switch field {
            case "date":
                guard case .string(let want) = value, case .string(let have)? = record["date"] else { return false }
                return (try? DateTime.parse(want)) == (try? DateTime.parse(have))
            case "landmarkId":
                guard case .string(let want) = value, case .object(let landmark)? = record["landmark"],
                    case .string(let have)? = landmark["id"]
                else { return record["landmarkId"] == value }
                return want.lowercased() == have.lowercased()
            default:
                return record[field] == value || (field == "note" && value == .string("") && record[field] == nil)
            }
        }
    }

    // MARK: - Queueing

    /// The outbox to queue in when the server cannot be reached: `--queue` given, online.
    var queueing: Outbox? {
        guard configuration.queue, case .fallback = configuration.cacheMode else { return nil }
        return outbox
    }

    /// Keeps one booking in the outbox (the server not reached), as asked: its id and key
    /// the ones already sent, if it was.
    func queue(
        _ body: JSONValue, id: Reservation.ID, key: String, sent: Bool, in outbox: Outbox, _ catalog: LandmarkCatalog
    ) async throws -> Queued {
        let at = configuration.now()
        var item = OutboxItem(
            kind: .reserve, id: id.description, reservation: id.description, key: key, queuedAt: at, request: body)
        // One never sent that the server is sure to refuse is refused now, not queued.
        if !sent, let booking = try Self.queuedReservation(item, catalog) {
            try Self.refuseOverCapacity(booking.landmark, partySize: booking.partySize)
        }
        if sent { item.markSent() }
        try await outbox.update { $0.append(item) }
        return Queued(reservations: [try Self.queuedReservation(item, catalog)].compactMap { $0 }, items: [item])
    }

    /// The bookings waiting in the outbox (not refused), as reservations.
    func queuedBookings(_ catalog: LandmarkCatalog) -> [Reservation] {
        outbox?.bookings(catalog) ?? []
    }

    /// The changes waiting in the outbox for `snapshot`'s reservations (`Outbox.changes`).
    func queuedChanges(over snapshot: ReservationSnapshot) -> [Reservation.ID: QueuedChange] {
        outbox?.changes(over: snapshot.reservations, snapshot.catalog, at: configuration.now()) ?? [:]
    }

    /// Cancels or confirms `ids` in the outbox: a queued booking not yet sent is
    /// edited (cancel drops it, confirm books it confirmed); any other is queued
    /// as a change of its own, with the version the cache has of it.
    func queueStatus(_ verb: String, _ ids: [Reservation.ID], in outbox: Outbox, _ catalog: LandmarkCatalog)
        async throws -> Queued
    {
        let kind: OutboxItem.Kind = verb == "cancel" ? .cancel : .confirm
        let cached = cachedRecords()
        let at = configuration.now()
        let queued = try await outbox.update { items in
            var shown: [Reservation] = []
            var changed: [OutboxItem] = []
            var dropped: Set<Reservation.ID> = []
            for id in ids {
                if let index = items.firstIndex(where: {
                    $0.kind == .reserve && $0.reservationID == id && !$0.sent && $0.refusal == nil
                }) {
                    var item = items[index]
                    if kind == .cancel {
                        items.remove(at: index)
                        dropped.insert(id)
                        if let booking = try Self.queuedReservation(item, catalog) {
                            shown.append(booking.changed(status: .cancelled, at: at))
                        }
                    } else {
                        var request = item.request
                        request?.set("status", .string(Reservation.Status.confirmed.rawValue))
                        item.set("request", request)
                        items[index] = item
                        if let booking = try Self.queuedReservation(item, catalog) { shown.append(booking) }
                    }
                    changed.append(item)
                    continue
                }
                let record = cached[id]
                let item = OutboxItem(
                    kind: kind, id: UUID().uuidString.lowercased(), reservation: id.description, key: nil,
                    queuedAt: at, version: record?.version)
                items.append(item)
                changed.append(item)
                if let record { shown.append(record) }
            }
            return Queued(reservations: shown, items: changed, dropped: dropped)
        }
        return queued.withChanges(from: outbox, catalog, at: at)
    }

    /// Modifies `id` in the outbox: a queued booking not yet sent has its request changed;
    /// any other is queued as a change made against `version`.
    func queueModify(
        _ id: Reservation.ID, _ change: ReservationChange, _ version: Int?, fields: [String: JSONValue],
        in outbox: Outbox, _ catalog: LandmarkCatalog
    ) async throws -> Queued {
        let at = configuration.now()
        let cached = cachedRecords()
        // A party or a landmark changed so that the party is larger than the landmark's day.
        if change.partySize != nil || change.landmark != nil {
            let known = cached[id] ?? queuedBookings(catalog).first { $0.id == id }
            let landmark = try change.landmark.map { try catalog.landmark(matching: $0) } ?? known?.landmark
            if let landmark, let partySize = change.partySize ?? known?.partySize {
                try Self.refuseOverCapacity(landmark, partySize: partySize)
            }
        }
        let queued = try await outbox.update { items in
            if let index = items.firstIndex(where: {
                $0.kind == .reserve && $0.reservationID == id && !$0.sent && $0.refusal == nil
            }) {
                var item = items[index]
                var request = item.request
                for (field, value) in fields { request?.set(field, value) }
                if change.note == "" { request?.set("note", nil) }
                item.set("request", request)
                items[index] = item
                return Queued(
                    reservations: [try Self.queuedReservation(item, catalog)].compactMap { $0 }, items: [item])
            }
            let item = OutboxItem(
                kind: .modify, id: UUID().uuidString.lowercased(), reservation: id.description, key: nil,
                queuedAt: at, request: .object(fields), version: version ?? cached[id]?.version)
            items.append(item)
            return Queued(reservations: [cached[id]].compactMap { $0 }, items: [item])
        }
        return queued.withChanges(from: outbox, catalog, at: at)
    }

    /// The cached list's reservations by id, and those this client made or changed lately
    /// (`ResponseCache.known`) where the list has none.
    private func cachedRecords() -> [Reservation.ID: Reservation] {
        guard let cache = configuration.cache, let catalog = state.catalog.withLock({ $0 }) else { return [:] }
        let known = cache.records(ResponseCache.known)?.records ?? []
        let records = known + (cache.records("reservations")?.records ?? [])
        let snapshot = ReservationSnapshot(records: records, catalog: catalog)
        // The list's, read after the known ones, wins.
        return Dictionary(snapshot.reservations.map { ($0.id, $0) }, uniquingKeysWith: { _, listed in listed })
    }
}

extension JSONValue {
    /// Sets (or with nil removes) an object's field; nothing for another value.
    mutating func set(_ field: String, _ value: JSONValue?) {
        guard case .object(var fields) = self else { return }
        fields[field] = value
        self = .object(fields)
    }
}
