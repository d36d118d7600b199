import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage
import ResvReference

/// Calendar subscriptions (docs/contracts.md, "Calendar subscriptions"): a
/// user's reservations as a read-only iCalendar feed at `/calendar/{secret}.ics`.
/// The secret, not a token, is what opens it (calendar programs send no
/// `Authorization`); `POST /calendar` and `POST /calendar/reset`, behind a
/// token, give its address. The secret is never logged (`LoggedPath`).
struct CalendarRoutes: Sendable {
    let store: ServerStore
    let catalogs: CatalogCache
    let now: @Sendable () -> Date

    /// PRODID's product: this server and its version.
    static let product = "resv-server \(Reference.version)"
    /// How often a subscriber is asked to look again (`REFRESH-INTERVAL`, `X-PUBLISHED-TTL`).
    static let refresh = "PT30M"

    /// `POST /calendar` and `POST /calendar/reset`, behind a token.
    var authenticatedEndpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .post("/calendar", use: address)
            .post("/calendar/reset", use: reset)
    }

    /// `GET` and `HEAD /calendar/{secret}.ics`: no token.
    var endpoints: RouteCollection<ServerContext> {
        RouteCollection(context: ServerContext.self)
            .get("/calendar/{secret}.ics", use: feed)
            .head("/calendar/{secret}.ics", use: head)
    }

    /// The user's feed address, the secret made on the first call and the same after.
    @Sendable func address(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        guard let secret = try await store.calendarSecret(context.user, make: true) else {
            throw APIError(.internalServerError, "no calendar secret was made")
        }
        return Self.addressBody(secret)
    }

    /// A new address; the old one answers 404 from now on.
    @Sendable func reset(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        Self.addressBody(try await store.resetCalendar(context.user))
    }

    static func addressBody(_ secret: String) -> Response {
        .json(status: .ok, body: Array(JSONValue.object(["path": .string("/calendar/\(secret).ics")]).encoded()))
    }

    /// The feed, or 304 when the subscriber's copy is current.
    @Sendable func feed(_ request: Request, context: ServerContext) async throws -> Response {
        let secret = context.parameters.get("secret") ?? ""
        guard CalendarSecret.isWellFormed(secret), let owner = try await store.calendars.owner(secret) else {
            throw APIError.calendarNotFound
        }
        let now = now()
        let name = try await store.tokens.name(owner.user) ?? ""
        // The owner, with when the user's newest change committed, is read before the list: a
        // commit between the two is in the bytes and not in the date, which is then older than
        // it (a copy fetched again later, never one kept stale); the other way round it would be.
        let feed = CalendarFeed(
            try await store.list(owner.user), catalog: catalogs.current, userName: name, since: owner.createdAt,
            committed: owner.changedAt, at: now)
        var headers = HTTPFields()
        headers[.eTag] = feed.etag
        headers[.lastModified] = HTTPDate.format(feed.lastModified)
        headers[.cacheControl] = "private, max-age=0, must-revalidate"
        // A 304's length is the 200's, as RFC 9110 allows, rather than the 0 of its empty body.
        headers[.contentLength] = String(feed.body.count)
        if feed.isCurrent(for: request, now: now) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "text/calendar; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: feed.body)))
    }

    /// `GET`'s answer without its body; an error too has none.
    @Sendable func head(_ request: Request, context: ServerContext) async throws -> Response {
        try await ErrorMiddleware().handle(request, context: context) { try await feed($0, context: $1) }
            .createHeadResponse()
    }
}

/// One user's feed as it is now: the bytes, their entity tag, and when they last changed.
struct CalendarFeed {
    let body: [UInt8]
    /// `"` and the first 32 hex digits of the body's SHA-256 `"`: a strong tag.
    let etag: String
    /// The newest change of what the body shows, in whole seconds (see `init`).
    let changed: Date
    /// `Last-Modified`: `changed`, or a second before now when that is now's second.
    let lastModified: Date

    /// `records` settled at `now` (an ended hold reads `expired`), by date then
    /// id; records that do not map are left out. The bytes hold nothing of the
    /// time they are made (each DTSTAMP is its event's last change), so they stay
    /// the same while the reservations do.
    ///
    /// `lastModified` must move whenever the bytes do: calendar programs that
    /// revalidate by date only (Apple's) never see a change otherwise. It is
    /// `committed`, when the user's newest change committed (`CommitTime`: later
    /// for every later commit, unlike a change's `updatedAt`, the time its
    /// request came, which a change that waited for a lock commits with after a
    /// newer one), or, for a hold that reads expired before the sweep records it,
    /// the hold's end; with no change, `since` (when the secret was made). And
    /// never the current second: a change later in the same second would leave
    /// it where it is, so a copy made now is dated a second earlier and is
    /// fetched whole at its next revalidation.
    init(
        _ records: [ReservationApiModel], catalog: LandmarkCatalog, userName: String, since: Date, committed: Date?,
        at now: Date
    ) {
        var shown: [Reservation] = []
        var newest = committed
        for record in records {
            guard let stored = try? Reservation(record, catalog: catalog) else { continue }
            let settled = stored.settled(at: now)
            if settled.status != stored.status, let end = stored.expiresAt { newest = max(newest ?? end, end) }
            shown.append(settled)
        }
        shown.sort { ($0.date, $0.id.description) < ($1.date, $1.id.description) }
        let name = ICalendarWriter.escaped("resv — \(userName)")
        var writer = ICalendarWriter(
            product: CalendarRoutes.product, stamp: .lastChange,
            properties: [
                "NAME:\(name)", "X-WR-CALNAME:\(name)", "REFRESH-INTERVAL;VALUE=DURATION:\(CalendarRoutes.refresh)",
                "X-PUBLISHED-TTL:\(CalendarRoutes.refresh)",
            ])
        for reservation in shown { writer.event(reservation) }
        writer.finish()
        body = Array(writer.take().utf8)
        etag = "\"" + Hex.string(Array(SHA256.hash(data: body))).prefix(32) + "\""
        changed = Timestamp.whole(newest ?? since)
        lastModified = min(changed, Timestamp.whole(now).addingTimeInterval(-1))
    }

    /// Whether the request's copy is this one (RFC 9110, 13.2.2): `If-None-Match`
    /// naming this tag (weak comparison) or `*`; only without it, `If-Modified-Since`
    /// at or after the last change (a valid date, one only, not in the future).
    func isCurrent(for request: Request, now: Date) -> Bool {
        let tags = request.headers[values: .ifNoneMatch]
        if !tags.isEmpty {
            let opaque = { (tag: Substring) in tag.hasPrefix("W/") ? tag.dropFirst(2) : tag }
            return tags.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
                .contains { $0 == "*" || opaque($0[...]) == etag[...] }
        }
        let dates = request.headers[values: .ifModifiedSince]
        guard dates.count == 1, let since = HTTPDate.parse(dates[0]), since <= now else { return false }
        return changed <= since
    }
}

/// HTTP's dates (RFC 9110, 5.6.7): written as IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), read in that form and the two obsolete ones.
enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let (day, second) = (seconds.floorDivided(by: 86_400), seconds.floorModulo(86_400))
        let (year, month, dayOfMonth) = DateTime.civilFromDays(day)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[day.floorModulo(7)]), \(two(dayOfMonth)) \(months[month - 1]) \(year) "
            + "\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) GMT"
    }

    /// IMF-fixdate, RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) or asctime
    /// (`Sun Nov  6 08:49:37 1994`); nil for anything else.
    static func parse(_ text: String) -> Date? {
        let words = text.split(separator: " ")
        let day: Substring
        let month: Substring
        let year: Int?
        let clock: Substring
        switch words.count {
        case 6 where words[0].hasSuffix(",") && words[5] == "GMT" && words[3].count == 4:
            (day, month, year, clock) = (words[1], words[2], Int(words[3]), words[4])
        case 4 where words[0].hasSuffix(",") && words[3] == "GMT":
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2].count == 2, let short = Int(parts[2]) else { return nil }
            // A two-digit year: the latest year with those digits not more than 50 years ahead.
            (day, month, year, clock) = (parts[0], parts[1], short + (short >= 70 ? 1900 : 2000), words[2])
        case 5 where !words[0].hasSuffix(",") && words[4].count == 4:
            (day, month, year, clock) = (words[2], words[1], Int(words[4]), words[3])
        default:
            return nil
        }
        let time = clock.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard let monthIndex = months.firstIndex(of: String(month)), let year, let dayOfMonth = Int(day),
            (1...2).contains(day.count), (1...31).contains(dayOfMonth), time.count == 3,
            let hour = time[0], let minute = time[1], let second = time[2],
            (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = DateTime.daysFromCivil(year: year, month: monthIndex + 1, day: dayOfMonth)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(_ divisor: Int) -> Int {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}

/// The path a log line may show: a calendar's secret is the key to its feed, so
/// anything after `/calendar/` but `reset` is left out (`/calendar/…`).
enum LoggedPath {
    static func of(_ request: Request) -> String { of(request.uri.path) }

    static func of(_ path: String) -> String {
        // Case and percent-encoding aside, so no spelling of the route slips through.
        let plain = (path.removingPercentEncoding ?? path).lowercased()
        guard let range = plain.range(of: "/calendar/"), !["reset", "reset/"].contains(plain[range.upperBound...])
        else { return path }
        return "/calendar/…"
    }
}
