import Foundation

// The one mapping from untrusted API models to domain models. Every record the
// tool reads, from a file or a server, passes through here; a record that fails
// is reported with its reason and never silently dropped or deleted.

extension Landmark {
    /// Maps an API landmark; nil-or-blank name or location and unknown categories are refused.
    public init(_ api: LandmarkApiModel) throws(LandmarkRejection) {
        guard let rawID = api.id else { throw .missingID }
        guard let id = ID(rawID) else { throw .invalidID(rawID) }
        guard let name = api.name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else {
            throw .missingName
        }
        guard let location = api.location?.trimmingCharacters(in: .whitespacesAndNewlines), !location.isEmpty
        else { throw .missingLocation }
        guard let rawCategory = api.category else { throw .missingCategory }
        guard let category = Category(rawValue: rawCategory) else { throw .unknownCategory(rawCategory) }
        if let capacity = api.capacity, capacity <= 0 { throw .invalidCapacity(capacity) }
        var timeZone: TimeZone?
        if let identifier = api.timeZone {
            guard let zone = TimeZone(identifier: identifier) else { throw .unknownTimeZone(identifier) }
            timeZone = zone
        }
        var timetable: Timetable?
        switch (api.hours, api.slots) {
        case (nil, nil): break
        case (let hours?, nil): timetable = try Timetable.mapping(hours, slots: false, dayCapacity: api.capacity)
        case (nil, let slots?): timetable = try Timetable.mapping(slots, slots: true, dayCapacity: api.capacity)
        case (_?, _?): throw .invalidTimetable("hours", "and slots are both given: give one of them")
        }
        self.init(
            id: id, name: name, location: location, description: api.description ?? "",
            category: category, isFeatured: api.isFeatured ?? false, imageName: api.imageName,
            capacity: api.capacity, timeZone: timeZone, timetable: timetable
        )
    }
}

extension Reservation {
    /// The versions a record may carry: from 1 to the largest integer every JSON
    /// reader keeps exactly (2^53 - 1), so each change's next version is a number
    /// too (a record another program wrote with `Int.max` would trap on its next change).
    public static let versions: ClosedRange<Int> = 1...(1 << 53) - 1

    /// Maps an API reservation against a catalog; the error says which rule failed.
    public init(_ api: ReservationApiModel, catalog: LandmarkCatalog) throws(RejectionReason) {
        guard let id = ID(api.id) else { throw .invalidReservationID(api.id) }
        guard let rawLandmarkID = api.landmarkId else { throw .missingLandmarkID }
        guard let landmarkID = Landmark.ID(rawLandmarkID) else { throw .invalidLandmarkID(rawLandmarkID) }
        guard let landmark = catalog[landmarkID] else {
            if let why = catalog.rejectedIDs[landmarkID] { throw .invalidLandmark(landmarkID.description, why) }
            throw .unknownLandmark(landmarkID.description)
        }
        guard let rawDate = api.date else { throw .missingDate }
        guard let date = try? DateTime.parse(rawDate) else { throw .invalidDate(rawDate) }
        guard let partySize = api.partySize else { throw .missingPartySize }
        guard Self.partySizes.contains(partySize) else { throw .invalidPartySize(partySize) }
        guard let rawStatus = api.status else { throw .missingStatus }
        guard let status = Status(rawValue: rawStatus) else { throw .unknownStatus(rawStatus) }
        // Records written before notes, times and versions were kept have none:
        // no note, times unknown, version 1 (never changed since versions began).
        if let note = api.note, !Self.isValidNote(note) { throw .invalidNote(note.count) }
        func time(_ text: String?, _ field: String) throws(RejectionReason) -> Date? {
            guard let text else { return nil }
            guard let date = try? DateTime.parse(text) else { throw .invalidTimestamp(field, text) }
            return Timestamp.whole(date)
        }
        let createdAt = try time(api.createdAt, "createdAt")
        let updatedAt = try time(api.updatedAt, "updatedAt")
        let version = api.version ?? 1
        guard Self.versions.contains(version) else { throw .invalidVersion(version) }
        // A hold needs its end; a waitlisted reservation may lack its order (it then joined first).
        let expiresAt = try time(api.expiresAt, "expiresAt")
        if status == .held, expiresAt == nil { throw .missingExpiry }
        var requested: Status?
        if status == .waitlisted {
            requested = .confirmed
            if let raw = api.requestedStatus {
                guard let parsed = Status(rawValue: raw), Status.initial.contains(parsed) else {
                    throw .unknownStatus(raw)
                }
                requested = parsed
            }
        }
        var series: SeriesID?
        if let raw = api.series {
            guard let parsed = SeriesID(raw) else { throw .invalidSeries(raw) }
            series = parsed
        }
        self.init(
            id: id, landmark: landmark, date: date, partySize: partySize, status: status, note: api.note,
            createdAt: createdAt, updatedAt: updatedAt ?? createdAt, version: version,
            expiresAt: status == .held || status == .expired ? expiresAt : nil,
            waitlistOrder: status == .waitlisted ? api.waitlistOrder ?? 0 : nil, requestedStatus: requested,
            waitlistPosition: status == .waitlisted ? api.waitlistPosition.flatMap { $0 > 0 ? $0 : nil } : nil,
            series: series)
    }
}
