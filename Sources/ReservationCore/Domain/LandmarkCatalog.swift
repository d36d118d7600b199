import Foundation

/// The landmarks of a backend, with those that failed their mapping.
public struct LandmarkCatalog: Sendable {
    public let landmarks: [Landmark]
    public let rejected: [RejectedLandmark]
    private let byID: [Landmark.ID: Landmark]
    /// Landmark ids present in the data whose record failed its mapping.
    let rejectedIDs: [Landmark.ID: LandmarkRejection]

    public init(_ landmarks: [Landmark]) {
        self.landmarks = landmarks
        self.rejected = []
        self.byID = Dictionary(landmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.rejectedIDs = [:]
    }

    /// Decodes and maps landmark records leniently, one element at a time.
    public init(records: [JSONValue]) {
        var landmarks: [Landmark] = []
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
            } catch {
                rejected.append(RejectedLandmark(index: index, id: rawID, reason: error))
                if let rawID, let id = Landmark.ID(rawID), byID[id] == nil {
                    rejectedIDs[id] = error
                }
            }
        }
        self.landmarks = landmarks
        self.rejected = rejected
        self.byID = byID
        self.rejectedIDs = rejectedIDs
    }

    public subscript(id: Landmark.ID) -> Landmark? { byID[id] }
}
