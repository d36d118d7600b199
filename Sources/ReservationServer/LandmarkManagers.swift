import ReservationCore

extension AuthenticatedContext {
    /// Refuses (403 `forbidden`) a caller who may not manage `landmark` (see its day, check a party
    /// in, change its capacity): its staff and admins may. Provisional until roles exist: anyone may.
    func requireManager(of landmark: Landmark.ID) throws {}
}
