import ReservationCore

extension AuthenticatedContext {
    /// Refuses (403 `forbidden`) a caller who may not manage `landmark` (see its day, check a party
    /// in, change its capacity): its staff and admins may (`mayManage`), as their token's scope allows.
    func requireManager(of landmark: Landmark.ID) throws {
        guard mayManage(landmark) else {
            throw APIError(
                .forbidden, .forbidden,
                "only the landmark's staff or an admin may do this; you are a \(access.role.rawValue)"
                    + (access.role == .staff ? " of other landmarks" : ""))
        }
    }

    /// The one rule of who manages a landmark, so acts on every user's reservations there: its staff
    /// and admins (`UserAccess.manages`), by a token whose scope keeps the role (not `calendar`).
    /// `requireManager(of:)` and `RouteBackend.acting(on:_:)` both ask it.
    func mayManage(_ landmark: Landmark.ID) -> Bool { access.manages(landmark) }
}

extension AuthenticatedContext {
    /// Refuses (403 `forbidden`) a caller who is not an admin (the catalog's changes), as their token's scope allows.
    func requireAdmin() throws {
        guard access.role == .admin else {
            throw APIError(
                .forbidden, .forbidden, "only an admin may change the catalog; you are a \(access.role.rawValue)")
        }
    }
}
