import Foundation

/// A landmark's day as who runs it sees it (`resv day`, docs/contracts.md, "A day's manifest"):
/// every party booked there that day, across users, by time (then id), with totals. Cancelled
/// reservations and holds that expired are not parties of the day and are left out.
public struct DayManifest: Sendable {
    /// One party: the reservation and the name of the user it belongs to.
    public struct Party: Sendable {
        public let reservation: Reservation
        public let user: String

        public init(reservation: Reservation, user: String) {
            self.reservation = reservation
            self.user = user
        }
    }

    public let landmark: Landmark
    public let day: CalendarDay
    public let parties: [Party]

    /// The statuses a party of a manifest may have, in the order totals list them.
    public static let statuses: [Reservation.Status] = [.pending, .held, .confirmed, .checkedIn, .noShow, .waitlisted]

    /// The parties among `parties` (a landmark's reservations, any user's) on `day` in the
    /// landmark's zone, as they read at `now` (a hold that ended is expired: left out).
    public init(landmark: Landmark, day: CalendarDay, parties: [Party], at now: Date) {
        self.landmark = landmark
        self.day = day
        let interval = day.interval(in: Capacity.calendar(for: landmark))
        self.parties = parties.map { Party(reservation: $0.reservation.settled(at: now), user: $0.user) }
            .filter { party in
                let reservation = party.reservation
                guard reservation.landmark.id == landmark.id, Self.statuses.contains(reservation.status),
                    let interval
                else { return false }
                return reservation.date >= interval.start && reservation.date < interval.end
            }
            .sorted { ($0.reservation.date, $0.reservation.id) < ($1.reservation.date, $1.reservation.id) }
    }

    /// The people of the parties with `status`.
    public func people(_ status: Reservation.Status) -> Int {
        parties.lazy.filter { $0.reservation.status == status }.reduce(0) { $0 + $1.reservation.partySize }
    }

    /// The people of every party listed, waitlisted ones included.
    public var people: Int { parties.reduce(0) { $0 + $1.reservation.partySize } }

    /// The wall time of a party at the landmark, `HH:mm`.
    public func time(of reservation: Reservation) -> String {
        let calendar = Capacity.calendar(for: landmark)
        let parts = calendar.dateComponents([.hour, .minute], from: reservation.date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// The manifest as `resv day --json` prints it and `GET /landmarks/{id}/day/{day}` answers it.
    public var json: JSONValue {
        .object([
            "landmark": .object([
                "id": .string(landmark.id.description), "name": .string(landmark.name),
                "timeZone": .string((landmark.timeZone ?? .gmt).identifier),
            ]),
            "day": .string(day.description),
            "parties": .array(
                parties.map { party in
                    let reservation = party.reservation
                    return .object([
                        "id": .string(reservation.id.description), "time": .string(time(of: reservation)),
                        "date": .string(DateTime.format(reservation.date)), "user": .string(party.user),
                        "partySize": .integer(Int64(reservation.partySize)),
                        "status": .string(reservation.status.rawValue),
                        "note": reservation.note.map { .string($0) } ?? .null,
                        "expiresAt": reservation.expiresAt.map { .string(DateTime.format($0)) } ?? .null,
                    ])
                }),
            "totals": .object([
                "parties": .integer(Int64(parties.count)), "people": .integer(Int64(people)),
                "peopleByStatus": .object(
                    Dictionary(uniqueKeysWithValues: Self.statuses.map { ($0.rawValue, .integer(Int64(people($0)))) })),
            ]),
        ])
    }

    /// The manifest of a store read in this process (a file, memory), where every reservation is
    /// its one owner's: the landmark the user named, on the day `day` gives for it.
    public init(
        of text: String, on day: (Landmark) throws -> CalendarDay, in snapshot: ReservationSnapshot, owner: String,
        at now: Date
    ) throws {
        let landmark = try snapshot.catalog.landmark(matching: text)
        self.init(
            landmark: landmark, day: try day(landmark),
            parties: snapshot.reservations.map { Party(reservation: $0, user: owner) }, at: now)
    }

    /// Reads a manifest a server answered, its parties through the one mapping (a party that
    /// does not map is refused with the rest: the manifest is the server's to get right).
    public init?(json: JSONValue, catalog: LandmarkCatalog, at now: Date) {
        guard case .string(let landmarkText)? = json["landmark"]?["id"], let id = Landmark.ID(landmarkText),
            let landmark = catalog[id], case .string(let dayText)? = json["day"], let day = CalendarDay(dayText),
            case .array(let items)? = json["parties"]
        else { return nil }
        var parties: [Party] = []
        for item in items {
            guard case .string(let user)? = item["user"], case .string(let idText)? = item["id"],
                case .string(let status)? = item["status"], case .string(let date)? = item["date"],
                case .integer(let size)? = item["partySize"], let partySize = Int(exactly: size)
            else { return nil }
            var note: String?
            if case .string(let text)? = item["note"] { note = text }
            var expiresAt: String?
            if case .string(let text)? = item["expiresAt"] { expiresAt = text }
            var api = ReservationApiModel(
                id: idText, landmarkId: landmarkText, date: date, partySize: partySize, status: status)
            api.note = note
            api.expiresAt = expiresAt
            guard let reservation = try? Reservation(api, catalog: catalog) else { return nil }
            parties.append(Party(reservation: reservation, user: user))
        }
        self.init(landmark: landmark, day: day, parties: parties, at: now)
    }
}
