import Foundation

/// A place that can be visited. Built only by the catalog or by mapping a
/// `LandmarkApiModel`, so every value has a name, a location and a category.
public struct Landmark: Sendable, Hashable, Identifiable {
    /// A landmark's identity; distinct from a reservation's so the two cannot be swapped.
    public typealias ID = EntityID<Landmark>

    public enum Category: String, Sendable, Hashable, CaseIterable {
        case mountains, lakes, bridges
    }

    /// The fields live in one shared, immutable box: every reservation carries
    /// its landmark, and copying one reference instead of nine fields (five of
    /// them reference-counted) is what makes a 100,000-reservation list cheap.
    private final class Storage: Sendable {
        let name: String
        let location: String
        let description: String
        let category: Category
        let isFeatured: Bool
        let imageName: String?
        let capacity: Int?
        let timeZone: TimeZone?
        let timetable: Timetable?

        init(
            name: String, location: String, description: String, category: Category, isFeatured: Bool,
            imageName: String?, capacity: Int?, timeZone: TimeZone?, timetable: Timetable?
        ) {
            self.name = name
            self.location = location
            self.description = description
            self.category = category
            self.isFeatured = isFeatured
            self.imageName = imageName
            self.capacity = capacity
            self.timeZone = timeZone
            self.timetable = timetable
        }
    }

    public let id: ID
    private let storage: Storage

    public var name: String { storage.name }
    public var location: String { storage.location }
    public var description: String { storage.description }
    public var category: Category { storage.category }
    public var isFeatured: Bool { storage.isFeatured }
    public var imageName: String? { storage.imageName }
    /// The most people (sum of party sizes of active reservations) taken on one calendar day.
    public var capacity: Int? { storage.capacity }
    /// The IANA zone that defines a calendar day for `capacity`; UTC when nil.
    public var timeZone: TimeZone? { storage.timeZone }
    /// When visits may start (opening hours or timed-entry slots, on its wall clock); nil: any time.
    public var timetable: Timetable? { storage.timetable }

    package init(
        id: ID, name: String, location: String, description: String, category: Category,
        isFeatured: Bool = false, imageName: String? = nil, capacity: Int? = nil, timeZone: TimeZone? = nil,
        timetable: Timetable? = nil
    ) {
        self.id = id
        self.storage = Storage(
            name: name, location: location, description: description, category: category, isFeatured: isFeatured,
            imageName: imageName, capacity: capacity, timeZone: timeZone, timetable: timetable)
    }

    /// Equal when every field is equal, as for a plain struct.
    public static func == (lhs: Landmark, rhs: Landmark) -> Bool {
        lhs.id == rhs.id
            && (lhs.storage === rhs.storage
                || (lhs.name, lhs.location, lhs.description, lhs.category, lhs.isFeatured)
                    == (rhs.name, rhs.location, rhs.description, rhs.category, rhs.isFeatured)
                    && (lhs.imageName, lhs.capacity, lhs.timeZone) == (rhs.imageName, rhs.capacity, rhs.timeZone)
                    && lhs.timetable == rhs.timetable)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(name)
    }
}
