import Foundation

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
    /// Opening hours, one plan or one per weekday (`Timetable`), as given; mapped by `Landmark.init(_:)`.
    public var hours: JSONValue?
    /// Timed-entry slots, one plan or one per weekday, as given.
    public var slots: JSONValue?

    public init(
        id: String? = nil, name: String? = nil, location: String? = nil, description: String? = nil,
        category: String? = nil, isFeatured: Bool? = nil, imageName: String? = nil, capacity: Int? = nil,
        timeZone: String? = nil, hours: JSONValue? = nil, slots: JSONValue? = nil
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
        self.hours = hours
        self.slots = slots
    }

    /// The wire form of a domain landmark.
    public init(_ landmark: Landmark) {
        self.init(
            id: landmark.id.description, name: landmark.name, location: landmark.location,
            description: landmark.description, category: landmark.category.rawValue,
            isFeatured: landmark.isFeatured, imageName: landmark.imageName, capacity: landmark.capacity,
            timeZone: landmark.timeZone?.name,
            hours: landmark.timetable.flatMap { $0.isSlotted ? nil : $0.json },
            slots: landmark.timetable.flatMap { $0.isSlotted ? $0.json : nil }
        )
    }
}
