import Foundation

/// The landmarks of a backend, with those that failed their mapping.
public struct LandmarkCatalog: Sendable {
    public let landmarks: [Landmark]
    public let rejected: [RejectedLandmark]
    /// The catalog's version in the database it was read from (each change
    /// numbers it higher); 0 for one that is not a database's (a file, the built-in one).
    public let version: Int64
    /// The landmarks retired (`"retired": true` in their record): still mapped,
    /// so what is booked there is listed and cancellable, but taking no new bookings.
    public let retired: Set<Landmark.ID>
    private let byID: [Landmark.ID: Landmark]
    /// Landmark ids present in the data whose record failed its mapping.
    let rejectedIDs: [Landmark.ID: LandmarkRejection]

    public init(_ landmarks: [Landmark]) {
        self.landmarks = landmarks
        self.rejected = []
        self.version = 0
        self.retired = []
        self.byID = Dictionary(landmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.rejectedIDs = [:]
    }

    /// Decodes and maps landmark records leniently, one element at a time.
    public init(records: [JSONValue], version: Int64 = 0) {
        var landmarks: [Landmark] = []
        var retired: Set<Landmark.ID> = []
        var rejected: [RejectedLandmark] = []
        var byID: [Landmark.ID: Landmark] = [:]
        var rejectedIDs: [Landmark.ID: LandmarkRejection] = [:]
        for (index, record) in records.enumerated() {
            let rawID: String? = if case .string(let id)? = record["id"] { id } else { nil }
            do throws(LandmarkRejection) {
                let landmark = try Landmark(LandmarkApiModel(json: record))
                guard byID[landmark.id] == nil else { throw .duplicateID(landmark.id.description) }
                byID[landmark.id] = landmark
                landmarks.append(landmark)
                if record["retired"] == .bool(true) { retired.insert(landmark.id) }
            } catch {
                rejected.append(RejectedLandmark(index: index, id: rawID, reason: error))
                if let rawID, let id = Landmark.ID(rawID), byID[id] == nil {
                    rejectedIDs[id] = error
                }
            }
        }
        self.landmarks = landmarks
        self.rejected = rejected
        self.version = version
        self.retired = retired
        self.byID = byID
        self.rejectedIDs = rejectedIDs
    }

    public subscript(id: Landmark.ID) -> Landmark? { byID[id] }

    /// The landmark `text` names (`landmark(matching:)`), refused (`retired`) when it takes no new bookings.
    public func bookable(matching text: String) throws(ReservationError) -> Landmark {
        let landmark = try landmark(matching: text)
        guard !retired.contains(landmark.id) else { throw .retired(landmark) }
        return landmark
    }
}
