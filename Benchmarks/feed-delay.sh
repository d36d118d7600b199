#!/usr/bin/env bash
# BENCHMARKS.md's "The feed at team scale" (docs/feed.md): the change feed
# (`GET /changes?after=CURSOR&wait=30`, long poll) at team scale on PostgreSQL. One throwaway
# PostgreSQL (scripts/with-postgres), three resv-server instances on it, three users.
#
# Writers: WRITERS loops per user (default 4), spread over the three instances, each a seeded
# random mix of
#   - bookings of one place at Yosemite Valley (capacity 4,000) on one of 8 shared days;
#   - cancels of one of the writer's own earlier bookings there;
#   - bookings of a party of 40 with `waitlist: true` at Mount Rainier (capacity 120, so three
#     parties a day) on one of 12 "hot" days shared by all users: confirmed or waitlisted;
#   - cancels of one of the writer's own hot bookings: a confirmed one frees places and promotes
#     the oldest waitlisted party of that day, often another user's (the cross-user case: the
#     promotion is written into that user's feed by this user's transaction);
#   - moves (PATCH date) of one of the writer's own hot bookings to another hot day: frees places
#     (a promotion) where a confirmed one leaves, joins the list where a waitlisted one goes (and
#     is promoted at once if it fits); 409 when a confirmed one does not fit (expected, counted).
# Watchers: per user, one per instance, each a loop of `GET /changes?after=CURSOR&wait=30` from
# the cursor taken before the writers start.
#
# Every acknowledged change (201 created, 200 cancelled or modified, with the reservation) has the time
# its answer arrived; every change a watcher receives, the time it arrived. After DURATION
# seconds the writers stop; once every watcher has received nothing for 3 s, the watchers stop
# and each asks `GET /changes?after=LAST&wait=0` until nothing more comes ("late"). The truth is
# each user's `GET /history` (promotions included). Reported: acknowledged changes per user; per
# watcher the changes received, MISSED (in the history, never received), duplicates, phantoms
# (received, not in the history) and late; the delay ack → delivered (p50, p99, max; negative
# when the watcher had it before the writer had its answer) over all deliveries of acknowledged
# changes and of promotions whose cause is known (the move's own answer, or the one cancel or
# move of a confirmed party from that landmark-day in that second); the request count and every
# non-2xx status (500s counted apart). A change is keyed by (user, reservation, kind, version).
#
#   Benchmarks/feed-delay.sh                       # the debug build of this tree
#   RESV_SERVER_BIN=/path/to/resv-server Benchmarks/feed-delay.sh
#
# RESV_SERVER_BIN: the resv-server to measure (default .build/debug/resv-server; not built here).
# DURATION (seconds of writing, default 30), WRITERS (loops per user, default 4), SEED (default 41).
# RESV_TEST_POSTGRES_URL: a PostgreSQL to use (its database should be a throwaway one); without
# it the script reruns itself under scripts/with-postgres. FEED_DELAY_JSON=PATH also writes the
# figures as JSON. Needs python3 (standard library only).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
server=${RESV_SERVER_BIN:-.build/debug/resv-server}
[ -x "$server" ] || { echo "feed-delay: no resv-server at $server (set RESV_SERVER_BIN, or swift build --product resv-server)" >&2; exit 1; }
server=$(cd "$(dirname "$server")" && pwd)/$(basename "$server")
if [ -z "${RESV_TEST_POSTGRES_URL:-}" ]; then
  exec scripts/with-postgres "$0" "$@"
fi
export RESV_SERVER_BIN=$server
url=$RESV_TEST_POSTGRES_URL
duration=${DURATION:-30}
writers=${WRITERS:-4}
seed=${SEED:-41}
ulimit -n 8192 2>/dev/null || true
work=$(mktemp -d "${TMPDIR:-/tmp}/feed-delay.XXXXXX")
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "feed-delay: stopped by SIGTERM (scripts/with-postgres passes it on)" >&2; exit 143' TERM
trap 'echo "feed-delay: interrupted" >&2; exit 130' INT

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "server: $server ($(stat -c %s "$server") bytes, $(date -u -r "$server" +%Y-%m-%dT%H:%M:%SZ))"
echo "postgres: $("$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"/postgres --version)"
echo "duration ${duration} s, ${writers} writers per user, seed ${seed}; load average at start: $(cut -d" " -f1-3 /proc/loadavg)"

# Names unique to this run, so a reused database's earlier history is not counted.
run=$(date +%s)-$$
tokens=()
for user in alice bob carol; do
  tokens+=("$("$server" token create "feed-$user-$run" --database "$url" 2>"$work/token.err")") ||
    { cat "$work/token.err" >&2; exit 1; }
done

# Three instances; the first creates or migrates the schema before the others start.
ports=()
for i in 0 1 2; do
  "$server" serve --database "$url" --port 0 --log-level notice 2>"$work/server$i.log" &
  pids+=($!)
  port=
  for _ in $(seq 600); do
    port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/server$i.log" | head -1)
    [ -n "$port" ] && break
    kill -0 "${pids[$i]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "feed-delay: instance $i did not start:" >&2; cat "$work/server$i.log" >&2; exit 1; }
  ports+=("$port")
done
echo "instances on ports ${ports[*]}, one PostgreSQL"

python3 - "$duration" "$writers" "$seed" "${FEED_DELAY_JSON:-}" "${ports[@]}" "${tokens[@]}" <<'PY'
import asyncio, collections, json, random, sys, time, urllib.parse

duration, writers_per_user, seed = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
json_out = sys.argv[4]
ports = [int(p) for p in sys.argv[5:8]]
tokens = sys.argv[8:11]
users = ["alice", "bob", "carol"]
HOST = "127.0.0.1"

PLAIN = "bf3703bb-31cd-47f6-9f24-25165f85296c"   # Yosemite Valley, capacity 4,000
HOT = "12b84d1a-6e75-4c9a-a791-778746bf7bcd"     # Mount Rainier, capacity 120
plain_days = [f"2031-03-{d:02d}T18:00:00Z" for d in range(1, 9)]
hot_days = [f"2031-04-{d:02d}T18:00:00Z" for d in range(1, 13)]

statuses = collections.Counter()   # (method, status) -> count; status "timeout"/"error" for none
requests = [0]

class Connection:
    """One keep-alive HTTP/1.1 connection to one instance, reopened after any failure."""
    def __init__(self, port):
        self.port, self.reader, self.writer = port, None, None

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def _request(self, method, path, token, body):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        data = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nAuthorization: Bearer {token}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        head += f"Content-Length: {len(data)}\r\n\r\n"
        self.writer.write(head.encode() + data)
        line = await self.reader.readline()
        if not line:
            raise ConnectionError("connection closed")
        status = int(line.split()[1])
        length, chunked, close = 0, False, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and value == "close":
                close = True
        if chunked:
            payload = b""
            while (size := int((await self.reader.readline()).split(b";")[0], 16)) > 0:
                payload += await self.reader.readexactly(size)
                await self.reader.readline()
            while (await self.reader.readline()) not in (b"\r\n", b""):
                pass
        else:
            payload = await self.reader.readexactly(length) if length else b""
        if close:
            self.close()
        try:
            answer = json.loads(payload) if payload else None
        except ValueError:
            answer = None
        return status, answer

    async def request(self, method, path, token, body=None, timeout=60):
        """(status, json) — status None when the request failed or timed out (counted too)."""
        requests[0] += 1
        kind = method if not path.startswith("/changes") else "GET /changes"
        try:
            status, answer = await asyncio.wait_for(self._request(method, path, token, body), timeout)
        except asyncio.CancelledError:
            self.close()
            raise
        except asyncio.TimeoutError:
            self.close()
            statuses[(kind, "timeout")] += 1
            return None, None
        except (OSError, ConnectionError, ValueError, IndexError, asyncio.IncompleteReadError) as error:
            self.close()
            statuses[(kind, "error " + type(error).__name__)] += 1
            return None, None
        statuses[(kind, status)] += 1
        return status, answer

# What the writers were told: (user, reservation id, change, version after) -> time the answer arrived.
acked = {}

def ack(user, kind, answer):
    if isinstance(answer, dict) and "id" in answer and "version" in answer:
        acked[(user, answer["id"].lower(), kind, answer["version"])] = time.monotonic()
        return answer["id"].lower()
    return None

async def writer(user, instance, index, stop):
    rng = random.Random(seed * 1000 + user * 100 + index)
    token = tokens[user]
    connection = Connection(ports[instance])
    plain, hot = [], {}   # own live reservation ids (hot: with their day)
    while not stop.is_set():
        roll = rng.random()
        status = None
        if roll < 0.12 and plain:
            rid = plain.pop(rng.randrange(len(plain)))
            status, answer = await connection.request("DELETE", f"/reservations/{rid}", token)
            if status == 200:
                ack(user, "cancelled", answer)
        elif roll < 0.22 and hot:
            rid = rng.choice(sorted(hot))
            del hot[rid]
            status, answer = await connection.request("DELETE", f"/reservations/{rid}", token)
            if status == 200:
                ack(user, "cancelled", answer)
        elif roll < 0.30 and hot:
            # Move a hot party to another hot day: frees its places (a promotion there), and
            # joins the other day's list when waitlisted; 409 when a confirmed one does not fit.
            rid = rng.choice(sorted(hot))
            day = rng.choice([d for d in hot_days if d != hot[rid]])
            status, answer = await connection.request("PATCH", f"/reservations/{rid}", token, {"date": day})
            if status == 200:
                ack(user, "modified", answer)
                hot[rid] = day
        elif roll < 0.50:
            body = {"landmarkId": HOT, "date": rng.choice(hot_days), "partySize": 40, "waitlist": True}
            status, answer = await connection.request("POST", "/reservations", token, body)
            if status in (200, 201) and (rid := ack(user, "created", answer)):
                hot[rid] = body["date"]
        else:
            body = {"landmarkId": PLAIN, "date": rng.choice(plain_days), "partySize": 1}
            status, answer = await connection.request("POST", "/reservations", token, body)
            if status in (200, 201) and (rid := ack(user, "created", answer)):
                plain.append(rid)
        if status is None or status >= 500:
            await asyncio.sleep(0.05)

def key_of(user, change):
    return (user, change["reservationId"].lower(), change["change"], change["after"]["version"])

class Watcher:
    def __init__(self, user, instance):
        self.user, self.instance = user, instance
        self.connection = Connection(ports[instance])
        self.cursor = None
        self.first = None
        self.received = {}            # key -> first arrival time
        self.duplicates = 0
        self.late = set()             # keys first received in the final drain
        self.last_arrival = 0.0
        self.expired = False
        self.statuses = collections.Counter()

    async def start(self):
        while True:
            status, page = await self.connection.request("GET", "/changes", tokens[self.user])
            if status == 200:
                self.cursor = self.first = page["cursor"]
                return
            await asyncio.sleep(0.2)

    def take(self, page, late=False):
        now = time.monotonic()
        for change in page["changes"]:
            key = key_of(self.user, change)
            if key in self.received:
                self.duplicates += 1
                continue
            self.received[key] = now
            if late:
                self.late.add(key)
        if page["changes"]:
            self.last_arrival = now
        self.cursor = page["cursor"]

    async def poll(self, wait, timeout):
        path = f"/changes?after={urllib.parse.quote(self.cursor, safe='')}&wait={wait}"
        status, page = await self.connection.request("GET", path, tokens[self.user], timeout=timeout)
        if status is not None:
            self.statuses[status] += 1
        if status == 410:
            self.expired = True
        return status, page

    async def run(self):
        while not self.expired:
            status, page = await self.poll(30, 45)
            if status == 200 and isinstance(page, dict):
                self.take(page)
            elif status is None or status >= 400:
                await asyncio.sleep(0.2)

    async def drain(self):
        self.connection.close()
        for _ in range(1000):
            if self.expired:
                return
            status, page = await self.poll(0, 30)
            if status == 200 and isinstance(page, dict):
                if not page["changes"]:
                    return
                self.take(page, late=True)
            else:
                await asyncio.sleep(0.2)

def quantile(values, q):
    return values[min(len(values) - 1, int(q * len(values)))]

async def main():
    watchers = [Watcher(u, i) for u in range(3) for i in range(3)]
    await asyncio.gather(*(w.start() for w in watchers))
    watch_tasks = [asyncio.create_task(w.run()) for w in watchers]
    await asyncio.sleep(1)  # every watcher is in its long poll
    stop = asyncio.Event()
    # Writer j of user u talks to instance (u + j) % 3: every user writes through every instance.
    write_tasks = [asyncio.create_task(writer(u, (u + j) % 3, j, stop))
                   for u in range(3) for j in range(writers_per_user)]
    started = time.monotonic()
    await asyncio.sleep(duration)
    stop.set()
    await asyncio.gather(*write_tasks)
    written = time.monotonic() - started
    # Drained: no watcher received anything for 3 s (at most 60 s more).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        newest = max([w.last_arrival for w in watchers] + [started + written])
        if time.monotonic() - newest >= 3:
            break
        await asyncio.sleep(0.2)
    for task in watch_tasks:
        task.cancel()
    await asyncio.gather(*watch_tasks, return_exceptions=True)
    await asyncio.gather(*(w.drain() for w in watchers))

    # The truth: each user's history.
    history = []
    for u in range(3):
        connection = Connection(ports[u])
        status, entries = await connection.request("GET", "/history", tokens[u], timeout=120)
        if status != 200:
            raise SystemExit(f"GET /history answered {status} for {users[u]}")
        history.append(entries)
        connection.close()
    truth = [set(key_of(u, e) for e in history[u]) for u in range(3)]

    # The same feed read again from the first cursor now that nothing is in flight: what a watcher
    # should have received (a check of this script as much as of the server).
    reread = []
    for u in range(3):
        replay = Watcher(u, u)
        replay.cursor = watchers[3 * u].first
        await replay.drain()
        reread.append(set(replay.received))

    # A promotion's moment is the answer to the change that freed its places: the acknowledged
    # cancel or move of a confirmed party from the same landmark-day in the same second (`at`),
    # when there is exactly one.
    frees = collections.defaultdict(list)
    for u in range(3):
        for e in history[u]:
            before = e.get("before") or {}
            if e["change"] in ("cancelled", "modified") and before.get("status") in ("confirmed", "pending") \
                    and key_of(u, e) in acked:
                frees[(before["landmarkId"].lower(), before["date"], e["at"])].append(acked[key_of(u, e)])
    # A waitlisted party moved to a day where it fits is modified and promoted in one
    # transaction: the answer carries the promotion's version.
    promoted_by_move = {}
    for (u, rid, kind, version), t in list(acked.items()):
        if kind == "modified" and (u, rid, kind, version) not in truth[u] \
                and (u, rid, "promoted", version) in truth[u] and (u, rid, kind, version - 1) in truth[u]:
            del acked[(u, rid, kind, version)]
            acked[(u, rid, kind, version - 1)] = promoted_by_move[(u, rid, "promoted", version)] = t
    moments = dict(acked)
    moments.update(promoted_by_move)
    promotions = attributed = 0
    for u in range(3):
        for e in history[u]:
            if e["change"] != "promoted":
                continue
            promotions += 1
            day = (e["after"]["landmarkId"].lower(), e["after"]["date"], e["at"])
            if key_of(u, e) in moments:
                attributed += 1
            elif len(frees[day]) == 1:
                attributed += 1
                moments[key_of(u, e)] = frees[day][0]

    delays, late_deliveries = [], 0
    for w in watchers:
        for key, at in w.received.items():
            if key in w.late:
                late_deliveries += 1
            elif key in moments:
                delays.append(at - moments[key])
    delays.sort()

    acked_by_user = collections.Counter(k[0] for k in acked)
    lost = [k for k in acked if k not in truth[k[0]]]
    print()
    print(f"writing: {written:.1f} s, {len(write_tasks)} writers; "
          f"acknowledged {len(acked)} changes ({len(acked) / written:.0f}/s)")
    print(f"{'user':6} {'acknowledged':>12} {'in history':>10} {'promoted':>8} {'lost':>5}")
    for u in range(3):
        promoted = sum(1 for e in history[u] if e["change"] == "promoted")
        print(f"{users[u]:6} {acked_by_user[u]:12} {len(truth[u]):10} {promoted:8} "
              f"{sum(1 for k in lost if k[0] == u):5}")
    print(f"promotions: {promotions} ({attributed} attributed to the answer of the change that made them, "
          f"for the delay)")
    print()
    for u in range(3):
        print(f"re-read of {users[u]}'s feed from the first cursor after the run: {len(reread[u] & truth[u])} "
              f"of {len(truth[u])} changes in the history ({len(reread[u] - truth[u])} not in it)")
    print()
    print(f"{'watcher':18} {'received':>8} {'MISSED':>6} {'dup':>4} {'phantom':>7} {'late':>5}  "
          f"missed by kind; answers")
    misses = []
    for w in watchers:
        missed = len(truth[w.user] - set(w.received))
        phantom = len(set(w.received) - truth[w.user])
        misses.append(missed)
        kinds = collections.Counter(k[2] for k in truth[w.user] - set(w.received))
        answers = " ".join(f"{s}:{n}" for s, n in sorted(w.statuses.items()))
        print(f"{users[w.user] + ' @ instance ' + str(w.instance):18} {len(w.received):8} {missed:6} "
              f"{w.duplicates:4} {phantom:7} {len(w.late):5}  "
              f"{' '.join(f'{k} {n}' for k, n in sorted(kinds.items())) or '-'}; {answers}"
              f"{'  410 cursorExpired' if w.expired else ''}")
    print()
    if delays:
        print(f"delay ack -> delivered over {len(delays)} deliveries: p50 {quantile(delays, .5) * 1000:.0f} ms, "
              f"p99 {quantile(delays, .99) * 1000:.0f} ms, max {delays[-1] * 1000:.0f} ms "
              f"(min {delays[0] * 1000:.0f} ms; {late_deliveries} late deliveries not counted)")
    else:
        print("delay: no deliveries")
    non2xx = collections.Counter()
    for (kind, status), n in statuses.items():
        if not (isinstance(status, int) and 200 <= status < 300):
            non2xx[(kind, status)] += n
    fives = sum(n for (kind, status), n in non2xx.items() if status == 500)
    print(f"requests: {requests[0]}; non-2xx: "
          + (", ".join(f"{kind} {status} ×{n}" for (kind, status), n in sorted(non2xx.items(), key=str)) or "none")
          + f"; 500s: {fives}")
    summary = {
        "acknowledged": {users[u]: acked_by_user[u] for u in range(3)},
        "history": {users[u]: len(truth[u]) for u in range(3)},
        "lost": len(lost), "promotions": promotions, "promotionsAttributed": attributed,
        "missed": misses, "missedTotal": sum(misses),
        "rereadMissing": sum(len(truth[u] - reread[u]) for u in range(3)),
        "duplicates": sum(w.duplicates for w in watchers),
        "late": late_deliveries,
        "deliveries": len(delays),
        "p50ms": round(quantile(delays, .5) * 1000, 1) if delays else None,
        "p99ms": round(quantile(delays, .99) * 1000, 1) if delays else None,
        "maxms": round(delays[-1] * 1000, 1) if delays else None,
        "requests": requests[0], "status500": fives,
        "non2xx": {f"{k} {s}": n for (k, s), n in non2xx.items()},
    }
    print("SUMMARY " + json.dumps(summary, sort_keys=True))
    if json_out:
        with open(json_out, "w") as f:
            json.dump(summary, f, indent=2, sort_keys=True)

asyncio.run(main())
PY
# Stopped before PostgreSQL's statistics are read, so every backend has reported.
for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
done
if command -v psql >/dev/null; then
  sleep 1
  echo "PostgreSQL: $(psql "$url" -Atc "SELECT deadlocks || ' deadlocks, ' || xact_commit || ' commits, ' || xact_rollback || ' rollbacks' FROM pg_stat_database WHERE datname = current_database()" 2>&1) in this database since it was made"
fi
for i in 0 1 2; do
  n=$(grep -ci 'error' "$work/server$i.log" || true)
  [ "$n" = 0 ] || echo "instance $i logged $n lines with 'error' (first: $(grep -i -m1 'error' "$work/server$i.log" | cut -c1-200))"
done
