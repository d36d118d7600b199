import Foundation

extension Landmark {
    /// The built-in catalog: the Landmarks app's sample places, with ids fixed
    /// forever so that stored reservations keep pointing at the same landmark.
    /// Each has its local time zone; those visited by permit, tour or shuttle
    /// have a daily capacity, while the open bridge walk and the lake shore
    /// (Golden Gate Bridge, Lake Tahoe) take everyone.
    public static let builtIn: [Landmark] = [
        make(
            "7c6984ff-188e-417e-b476-ec5f30b8d745", "Golden Gate Bridge", "San Francisco, CA", .bridges,
            "A suspension bridge spanning the strait between San Francisco Bay and the Pacific.",
            featured: true, timeZone: "America/Los_Angeles"),
        make(
            "938e63b1-f467-476b-b442-edcb1b3bc450", "Lake Tahoe", "Sierra Nevada, CA", .lakes,
            "A large freshwater lake straddling California and Nevada.", timeZone: "America/Los_Angeles"),
        make(
            "937fea60-bb7b-4ee8-85da-c79962987917", "Half Dome", "Yosemite, CA", .mountains,
            "A granite dome whose cable route needs a day permit.", featured: true, capacity: 300,
            timeZone: "America/Los_Angeles"),
        make(
            "bf3703bb-31cd-47f6-9f24-25165f85296c", "Yosemite Valley", "Yosemite, CA", .mountains,
            "A glacial valley of waterfalls and granite cliffs.", capacity: 4000, timeZone: "America/Los_Angeles"),
        make(
            "20f154de-fbcc-4053-839f-4bf1926791e3", "Brooklyn Bridge", "New York, NY", .bridges,
            "A hybrid cable-stayed suspension bridge over the East River.", capacity: 1500,
            timeZone: "America/New_York"),
        make(
            "12b84d1a-6e75-4c9a-a791-778746bf7bcd", "Mount Rainier", "Washington", .mountains,
            "A glaciated stratovolcano and the highest peak of the Cascades.", featured: true, capacity: 120,
            timeZone: "America/Los_Angeles"),
        make(
            "718c388e-54a0-45fc-9b55-4a46ebe9e898", "Crater Lake", "Oregon", .lakes,
            "The deepest lake in the United States, in a collapsed volcano.", capacity: 500,
            timeZone: "America/Los_Angeles"),
        make(
            "cada0a12-4d1c-4c72-ad20-9d2741c35bd3", "Turtle Rock", "Joshua Tree National Park, CA", .mountains,
            "A boulder pile shaped like a turtle, with views over the desert.", capacity: 150,
            timeZone: "America/Los_Angeles"),
        make(
            "48b142d2-519c-4d29-b45b-dfde4424ad8d", "St. Mary Lake", "Glacier National Park, MT", .lakes,
            "A glacier-fed lake beneath the peaks of the Continental Divide.", capacity: 600,
            timeZone: "America/Denver"),
        make(
            "eb4e69bc-72c8-4f5a-a7d9-a17b0cef5248", "Mackinac Bridge", "Mackinaw City, MI", .bridges,
            "A suspension bridge joining Michigan's two peninsulas.", capacity: 2000, timeZone: "America/Detroit"),
    ]

    private static func make(
        _ id: String, _ name: String, _ location: String, _ category: Category, _ description: String,
        featured: Bool = false, capacity: Int? = nil, timeZone: String? = nil
    ) -> Landmark {
        // The ids are literals checked by a test; a typo must fail loudly in
        // that test, never turn into a fresh random id.
        Landmark(
            id: ID(id) ?? ID(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
            name: name, location: location, description: description, category: category,
            isFeatured: featured, capacity: capacity, timeZone: timeZone.flatMap(TimeZone.init(identifier:)))
    }
}

extension LandmarkCatalog {
    /// The built-in catalog.
    public static let builtIn = LandmarkCatalog(Landmark.builtIn)
}
