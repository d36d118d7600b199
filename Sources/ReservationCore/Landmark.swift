import Foundation

/// A place that can be visited. Built only by the catalog or by mapping a
/// `LandmarkApiModel`, so every value has a name, a location and a category.
public struct Landmark: Sendable, Hashable, Identifiable {
    /// A landmark's identity; distinct from a reservation's so the two cannot be swapped.
    public typealias ID = EntityID<Landmark>

    public enum Category: String, Sendable, Hashable, CaseIterable {
        case mountains, lakes, bridges
    }

    public let id: ID
    public let name: String
    public let location: String
    public let description: String
    public let category: Category
    public let isFeatured: Bool
    public let imageName: String?
    /// The most people (sum of party sizes of active reservations) taken on one calendar day.
    public let capacity: Int?
    /// The IANA zone that defines a calendar day for `capacity`; UTC when nil.
    public let timeZone: TimeZone?

    public init(
        id: ID, name: String, location: String, description: String, category: Category,
        isFeatured: Bool = false, imageName: String? = nil, capacity: Int? = nil, timeZone: TimeZone? = nil
    ) {
        self.id = id
        self.name = name
        self.location = location
        self.description = description
        self.category = category
        self.isFeatured = isFeatured
        self.imageName = imageName
        self.capacity = capacity
        self.timeZone = timeZone
    }
}

/// A landmark as a server or a store file holds it: untrusted, every field optional.
public struct LandmarkApiModel: Sendable, Hashable, Codable {
    public var id: String?
    public var name: String?
    public var location: String?
    public var description: String?
    public var category: String?
    public var isFeatured: Bool?
    public var imageName: String?
    public var capacity: Int?
    public var timeZone: String?

    public init(
        id: String? = nil, name: String? = nil, location: String? = nil, description: String? = nil,
        category: String? = nil, isFeatured: Bool? = nil, imageName: String? = nil, capacity: Int? = nil,
        timeZone: String? = nil
    ) {
        self.id = id
        self.name = name
        self.location = location
        self.description = description
        self.category = category
        self.isFeatured = isFeatured
        self.imageName = imageName
        self.capacity = capacity
        self.timeZone = timeZone
    }

    /// The wire form of a domain landmark.
    public init(_ landmark: Landmark) {
        self.init(
            id: landmark.id.description, name: landmark.name, location: landmark.location,
            description: landmark.description, category: landmark.category.rawValue,
            isFeatured: landmark.isFeatured, imageName: landmark.imageName, capacity: landmark.capacity,
            timeZone: landmark.timeZone?.identifier
        )
    }
}
