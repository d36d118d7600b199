"""The checker of scripts/faults (docs/testing.md, "Faults"): pure functions over what the clients
were told, what is stored and what each watcher and reader saw, so each invariant is shown red on a
hand-made history (scripts/fault_checks_test.py, run by `make test`). Standard library only.

Each check returns the failures it finds, one line each beginning with the invariant's name (the
names scripts/faults prints and exits on); an empty list when it holds.

A change of the feed is named by `change_key`: (reservation, change, version after it, command).
An acknowledged write names what it wrote by `written_key`: (reservation, version), which its
answer carries.
"""
import collections

LOST = "acknowledged bookings lost"
UNTOLD = "bookings no client was told about"
CAPACITY = "capacity: day over capacity"
GAP = "feed: gap"
TWICE = "feed: change twice"
ORDER = "feed: order"
APPEND_ONLY = "feed: not append-only"
STALE = "feed: acknowledged change not seen by a later read"
# Seen by the suite itself, not from a history: a node holds a later timeline than the leader's
# (a former leader took the lock back), so the leader lacks commits that node has.
SPLIT = "cluster: a former leader leads behind a newer timeline"
INVARIANTS = (LOST, UNTOLD, CAPACITY, GAP, TWICE, ORDER, APPEND_ONLY, STALE, SPLIT)

# Statuses that take places (a live hold does; an expired one reads `expired`).
TAKES_PLACES = ("confirmed", "pending", "held")


def change_key(change):
    """A feed change (or history entry, or a change in an undo's answer) as a hashable name."""
    after = change.get("after") or {}
    return (str(change.get("reservationId", "")).lower(), change.get("change"), after.get("version"),
            change.get("command"))


def written_key(key):
    """(reservation, version): what an acknowledged answer says was written, whatever change made
    that version (a cancel of what an undo had already cancelled makes none, and answers the
    version the undo made)."""
    return key[0], key[2]


def _short(ids, n=3):
    ids = sorted(ids)
    return ", ".join(str(i) for i in ids[:n]) + (f" and {len(ids) - n} more" if len(ids) > n else "")


def lost_bookings(acknowledged, stored):
    """Every booking a client was told was made (its id) is read back, whatever its status since."""
    lost = set(acknowledged) - set(stored)
    return [f"{LOST}: {len(lost)} of {len(set(acknowledged))} not read back: {_short(lost)}"] if lost else []


def resolve(indeterminate, stored, settled=None):
    """What became of the bookings whose answer never came: (made, not made), by the final read
    (their client-made ids) and, for one neither shows, its key's settlement (True made, False
    not). Never a failure: an unknown outcome is resolved, not lost and not failed."""
    settled = settled or {}
    made = {b for b in indeterminate if b in stored or settled.get(b) is True}
    return len(made), len(set(indeterminate) - made)


def untold_bookings(stored, acknowledged, indeterminate):
    """A stored booking is one some client was told about, or one whose answer it never got."""
    untold = set(stored) - set(acknowledged) - set(indeterminate)
    return [f"{UNTOLD}: {len(untold)} stored: {_short(untold)}"] if untold else []


def over_capacity(records, capacities, availability=()):
    """No landmark-day holds more than its capacity: the records read back summed per day
    (records: (landmark, day, party size, status)), and the server's own availability rows
    ((landmark, day, taken, capacity))."""
    taken = collections.Counter()
    for landmark, day, size, status in records:
        if status in TAKES_PLACES:
            taken[(landmark, day)] += size
    failures = [f"{CAPACITY}: {landmark} on {day}: {n} of {capacities[landmark]} (the records)"
                for (landmark, day), n in sorted(taken.items())
                if landmark in capacities and n > capacities[landmark]]
    failures += [f"{CAPACITY}: {landmark} on {day}: {n} of {capacity} (availability)"
                 for landmark, day, n, capacity in availability if n > capacity]
    return failures


def feed_list(name, seen, final):
    """One watcher's whole feed (SEEN, in the order it came) against the final read of it (FINAL):
    nothing missing (a gap), nothing twice, the final order."""
    failures = []
    counts = collections.Counter(seen)
    twice = [k for k, n in counts.items() if n > 1]
    if twice:
        failures.append(f"{TWICE}: {name} got {len(twice)} change(s) more than once, e.g. {twice[0]}")
    missing = set(final) - set(counts)
    if missing:
        failures.append(f"{GAP}: {name} never got {len(missing)} of {len(set(final))} changes, e.g. {sorted(missing, key=str)[0]}")
    position = {k: i for i, k in enumerate(final)}
    ordered = [position[k] for k in dict.fromkeys(seen) if k in position]
    if any(b < a for a, b in zip(ordered, ordered[1:])):
        failures.append(f"{ORDER}: {name} got changes in another order than the final read")
    return failures


def pair_orders(lists):
    """Every two observers (name -> list) put every pair of changes both saw in the same order."""
    failures = []
    names = sorted(lists)
    for x, a in enumerate(names):
        for b in names[x + 1:]:
            in_b = {k: i for i, k in enumerate(dict.fromkeys(lists[b]))}
            ordered = [in_b[k] for k in dict.fromkeys(lists[a]) if k in in_b]
            for i, (p, q) in enumerate(zip(ordered, ordered[1:])):
                if q < p:
                    failures.append(f"{ORDER}: {a} and {b} saw two changes in opposite orders")
                    break
    return failures


def append_only(reads, final):
    """Each full read of a feed (name, list) is a prefix of the final read: a list that is only
    ever appended to, never rewritten, reordered or shortened."""
    failures = []
    for name, read in reads:
        if list(read) != list(final[:len(read)]):
            at = next((i for i, (a, b) in enumerate(zip(read, final)) if a != b), min(len(read), len(final)))
            failures.append(f"{APPEND_ONLY}: {name} ({len(read)} changes) differs from the final read at change {at + 1}")
    return failures


def stale_reads(reads, writes):
    """No read begun after a write was acknowledged misses it: reads (name, began, list) of full
    feeds, writes (acknowledged at, [written keys: (reservation, version)])."""
    failures, named = [], set()
    for name, began, read in reads:
        have = {written_key(k) for k in read}
        for acked, keys in writes:
            if acked < began:
                missing = [tuple(k) for k in keys if tuple(k) not in have]
                if missing and missing[0] not in named:  # each write named once, by its first stale read
                    named.add(missing[0])
                    failures.append(f"{STALE}: {name}, begun {began - acked:.3f} s after {missing[0]} was acknowledged, lacks it")
    return failures


def outage(events, fault_began):
    """The outage a fault made, from requests answered from its start on (those under way when it
    began too): events (sent, answered, ok), ok False for a request with an indeterminate outcome
    (no answer, a timeout, a 5xx). None when none failed; else (first failure, seconds from it to
    the first success answered after it and sent no earlier than it, None when none came), both
    from the answers' times."""
    failed = sorted((answered, sent) for sent, answered, ok in events if not ok and answered >= fault_began)
    if not failed:
        return None
    first, first_sent = failed[0]
    back = min((answered for sent, answered, ok in events if ok and sent >= first_sent and answered > first),
               default=None)
    return first - fault_began, (back - first) if back is not None else None
