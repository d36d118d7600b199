#!/usr/bin/env python3
"""Load, faults and checks of scripts/failover (docs/testing.md, "A failover").
Standard library only.

Run by scripts/failover with the path of its setup.json (the cluster's nodes, the two
resv-server instances, the users' tokens). While writer threads of each user book and
cancel through both instances and a watcher per user long-polls GET /changes, it kills
the Patroni leader (patroni and postmaster, SIGKILL), brings the node back, switches the
leader over, and kills and restarts one resv-server instance, RUNS times. Then it reads
everything back and checks it. Exit 0 when every check holds, 1 otherwise.

A write is acknowledged when POST /reservations answers 201 (or 200) with a reservation,
or DELETE /reservations/{id} answers 200. Each booking has its own Idempotency-Key; on no
answer, a timeout, 429 or a 5xx the same request is sent again with the same key to the
other instance (after 50-250 ms; Retry-After is not waited, so the outage is measured to
a fraction of a second). 409 noCapacity is a refusal. Any other answer is unexpected.

Every invariant it prints is a check that fails the run, named in its line (failover_checks.py
holds those that read logs and answers; failover_checks_test.py shows each one red): a 5xx other
than 503 databaseUnavailable/serverBusy (502 and 504 too, though the request is retried), a
thread that died, a server log line at error level, a request a running instance never answered
(computed from the request lines logged at info: scripts/failover's default), an empty kept
day-count table after bookings were made.
"""
import collections, datetime, http.client, json, os, random, signal, statistics, subprocess
import re, sys, threading, time, urllib.parse, urllib.request, uuid

sys.dont_write_bytecode = True  # no __pycache__ left in the repository
import failover_checks  # noqa: E402
from cluster_control import Cluster  # noqa: E402

setup = json.load(open(sys.argv[1]))
work, runs, load, writers_per_user = setup["work"], setup["runs"], setup["load"], setup["writers"]
users, tokens, ports = setup["users"], setup["tokens"], setup["serverPorts"]
nodes = setup["nodes"]
patroni = Cluster(setup)
start = time.monotonic()

RAINIER, RAINIER_CAPACITY = "12b84d1a-6e75-4c9a-a791-778746bf7bcd", 120      # Mount Rainier
VALLEY, VALLEY_CAPACITY = "bf3703bb-31cd-47f6-9f24-25165f85296c", 4000       # Yosemite Valley
first_day = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=30)
rainier_days = [first_day + datetime.timedelta(days=k) for k in range(4)]
valley_days = [first_day + datetime.timedelta(days=k) for k in range(8)]
# 20:00 UTC is midday in Los Angeles, both landmarks' zone: the same calendar day.
at = lambda day: f"{day.isoformat()}T20:00:00Z"

lock = threading.Lock()
statuses = collections.Counter()          # (route, status or "timeout"/"no answer") -> n
failures = []                             # what broke a check, one line each
timeline = []                             # (t, text)
book_acks = []                            # dicts: user, id, key, sent, acked, replayed, body, attempts
cancel_acks = []                          # dicts: user, id, version, sent, acked
refusals = collections.Counter()          # code -> n
unresolved = []                           # (user, kind, key or id): no answer before the end
key_ids = collections.defaultdict(set)    # idempotency key -> ids answered for it
requests = [0]
unavailable = collections.Counter()       # (code, Retry-After) of every 503
slow = []                                 # (sent, seconds, route, instance, status): answers over 3 s
stop_writing = threading.Event()
stop_watching = threading.Event()


def now():
    return time.monotonic()


def note(text):
    t = now()
    with lock:
        timeline.append((t, text))
    print(f"  {t - start:7.1f} s  {text}", flush=True)


def fail(text):
    with lock:
        failures.append(text)
    print(f"  FAILURE: {text}", flush=True)


failover_checks.install_thread_guard(fail)


class Client:
    """Keep-alive connections to the two instances, reopened after any failure."""

    def __init__(self):
        self.connections = {}

    def request(self, instance, method, path, token, body=None, headers=None, timeout=30.0, route=None):
        connection = self.connections.get(instance)
        if connection is None:
            connection = http.client.HTTPConnection("127.0.0.1", ports[instance], timeout=timeout)
            self.connections[instance] = connection
        elif connection.sock is not None:
            connection.sock.settimeout(timeout)
        connection.timeout = timeout
        data = json.dumps(body).encode() if body is not None else None
        head = {"Authorization": f"Bearer {token}"}
        if data is not None:
            head["Content-Type"] = "application/json"
        head.update(headers or {})
        route = route or f"{method} {path.split('?')[0]}"
        with lock:
            requests[0] += 1
        began = now()
        try:
            connection.request(method, path, body=data, headers=head)
            answer = connection.getresponse()
            raw = answer.read()
        except TimeoutError:
            connection.close()
            self.connections.pop(instance, None)
            with lock:
                statuses[(route, "timeout")] += 1
                slow.append((began, now() - began, route, instance, "timeout"))
            return None, None, {}
        except (OSError, http.client.HTTPException):
            connection.close()
            self.connections.pop(instance, None)
            with lock:
                statuses[(route, "no answer")] += 1
            return None, None, {}
        took = now() - began
        with lock:
            statuses[(route, answer.status)] += 1
            if took > 3 and not (route == "GET /changes" and answer.status == 200):
                slow.append((began, took, route, instance, answer.status))
        try:
            decoded = json.loads(raw) if raw else None
        except ValueError:
            decoded = raw[:200]
        code = decoded.get("code") if isinstance(decoded, dict) else None
        if answer.status == 503:
            with lock:
                unavailable[(code, answer.getheader("Retry-After"))] += 1
        failure = failover_checks.answer_failure(answer.status, code, instance, route)
        if failure:
            fail(f"{failure}: {raw[:300]!r}")
        return answer.status, decoded, {k.lower(): v for k, v in answer.getheaders()}


def retryable(status):
    return status is None or status == 429 or status >= 500


def writer(u, j):
    rng = random.Random(4300 + 10 * u + j)
    client = Client()
    instance = (u + j) % 2
    mine = []  # this thread's acknowledged bookings, not cancelled
    token = tokens[u]
    give_up = lambda: stop_writing.is_set() and now() > stopped_at[0] + 60

    def book():
        nonlocal instance
        key = f"failover-{uuid.UUID(int=rng.getrandbits(128), version=4)}"
        if rng.random() < 0.4:
            body = {"landmarkId": RAINIER, "date": at(rng.choice(rainier_days)), "partySize": rng.randint(1, 8)}
        else:
            body = {"landmarkId": VALLEY, "date": at(rng.choice(valley_days)), "partySize": rng.randint(1, 8)}
        attempts = 0
        while True:
            attempts += 1
            sent = now()
            status, answer, head = client.request(instance, "POST", "/reservations", token, body,
                                                  {"Idempotency-Key": key})
            if status in (200, 201) and isinstance(answer, dict) and "id" in answer:
                rid = answer["id"].lower()
                with lock:
                    key_ids[key].add(rid)
                    book_acks.append({"user": u, "id": rid, "key": key, "sent": sent, "acked": now(),
                                      "replayed": head.get("idempotent-replayed") == "true",
                                      "body": body, "attempts": attempts, "instance": instance})
                mine.append(rid)
                return
            if status == 409 and isinstance(answer, dict) and answer.get("code") == "noCapacity":
                with lock:
                    refusals["noCapacity"] += 1
                return
            if not retryable(status):
                fail(f"unexpected answer to POST /reservations: {status} {answer!r:.300}")
                return
            if give_up():
                with lock:
                    unresolved.append((u, "book", key))
                return
            instance = 1 - instance
            time.sleep(rng.uniform(0.05, 0.25))

    def cancel():
        nonlocal instance
        rid = mine.pop(rng.randrange(len(mine)))
        while True:
            sent = now()
            status, answer, _ = client.request(instance, "DELETE", f"/reservations/{rid}", token,
                                               route="DELETE /reservations/{id}")
            if status == 200 and isinstance(answer, dict):
                with lock:
                    cancel_acks.append({"user": u, "id": rid, "version": answer.get("version"),
                                        "status": answer.get("status"), "sent": sent, "acked": now()})
                return
            if not retryable(status):
                fail(f"unexpected answer to DELETE /reservations/{rid} (an acknowledged booking): {status} {answer!r:.300}")
                return
            if give_up():
                with lock:
                    unresolved.append((u, "cancel", rid))
                return
            instance = 1 - instance
            time.sleep(rng.uniform(0.05, 0.25))

    while not stop_writing.is_set():
        if mine and rng.random() < 0.2:
            cancel()
        else:
            book()


class Watcher:
    """One user's feed: long polls alternating instances, resumed from the cursor after errors."""

    def __init__(self, u):
        self.user, self.instance = u, u % 2
        self.client = Client()
        self.seen = collections.Counter()
        self.arrivals = {}
        self.cursor = None
        self.last_arrival = now()
        self.late = 0

    def begin(self):
        for _ in range(100):
            status, page, _ = self.client.request(self.instance, "GET", "/changes", tokens[self.user])
            if status == 200:
                self.cursor = page["cursor"]
                return
            time.sleep(0.2)
        raise SystemExit(f"failover-check: GET /changes never answered 200 for {users[self.user]}")

    def poll(self, wait):
        path = f"/changes?after={urllib.parse.quote(self.cursor, safe='')}&wait={wait}"
        status, page, _ = self.client.request(self.instance, "GET", path, tokens[self.user],
                                              timeout=wait + 15, route="GET /changes")
        self.instance = 1 - self.instance
        if status == 200 and isinstance(page, dict):
            arrived = now()
            for change in page["changes"]:
                key = key_of(change)
                self.seen[key] += 1
                self.arrivals.setdefault(key, arrived)
            if page["changes"]:
                self.last_arrival = now()
            self.cursor = page["cursor"]
            return len(page["changes"])
        if status == 410:
            fail(f"{users[self.user]}'s watcher: 410 cursorExpired for a cursor the server gave")
            raise SystemExit
        if not retryable(status):
            fail(f"{users[self.user]}'s watcher: unexpected answer {status} {page!r:.300}")
        time.sleep(0.2)
        return None

    def run(self):
        try:
            while not stop_watching.is_set():
                self.poll(5)
        except SystemExit:
            pass

    def drain(self):
        for _ in range(200):
            got = self.poll(0)
            if got == 0:
                return
            if got:
                self.late += got


def key_of(change):
    return (change["reservationId"].lower(), change["change"], (change.get("after") or {}).get("version"))


# --- the cluster ------------------------------------------------------------------------------

roles, leader, healthy = patroni.roles, patroni.leader, patroni.healthy


def wait_for(condition, seconds, what):
    deadline = now() + seconds
    while now() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    fail(f"{what}: not within {seconds} s")
    return False


faults = []    # (t, kind) of each fault, in order
leaders = []   # (t, leader name) as Patroni's /cluster shows it, at each change


def watch_cluster():
    """Notes every change of leader or sync standby, as Patroni reports it."""
    last = None
    while not stop_watching.is_set():
        r = roles()
        if r:
            shown = " ".join(f"{n}={role}/{state}" for n, (role, state) in sorted(r.items()))
            key = tuple((n, role) for n, (role, _) in sorted(r.items()))
            if key != last:
                note(f"patroni: {shown}")
                last = key
                with lock:
                    leaders.append((now(), next((n for n, (role, _) in r.items() if role == "leader"), None)))
        time.sleep(0.25)


pidfile, read_pid, spawn, alive = patroni.pidfile, patroni.read_pid, patroni.spawn, patroni.alive


def kill_leader():
    name = leader()
    if name is None:
        fail("no leader to kill")
        return None, None
    node = next(n for n in nodes if n["name"] == name)
    index = nodes.index(node) + 1
    patroni_pid = read_pid(pidfile(f"patroni{index}"))
    postmaster_pid = read_pid(os.path.join(node["data"], "postmaster.pid"))
    for pid in (patroni_pid, postmaster_pid):
        if pid:
            os.kill(pid, signal.SIGKILL)
    t = now()
    for pid in (patroni_pid, postmaster_pid):
        if not pid or not wait_for(lambda: not alive(pid), 5, f"{name}'s process {pid} gone after SIGKILL"):
            raise SystemExit(f"failover-check: could not kill {name} (patroni {patroni_pid}, postmaster {postmaster_pid})")
    faults.append((t, "leader kill"))
    note(f"fault: kill -9 leader {name} (patroni {patroni_pid}, postmaster {postmaster_pid})")
    return node, t


def restart_node(node):
    patroni.restart_node(node)
    note(f"{node['name']}: wiped and started again")


def switchover():
    name = leader()
    if name is None:
        fail("no leader to switch over")
        return None, None
    node = next(n for n in nodes if n["name"] == name)
    t = now()
    faults.append((t, "switchover"))
    note(f"fault: switchover from {name} (POST /switchover)")
    request = urllib.request.Request(f"http://127.0.0.1:{node['rest']}/switchover", method="POST",
                                     data=json.dumps({"leader": name}).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        answer = urllib.request.urlopen(request, timeout=60)
        note(f"switchover answered {answer.status}: {answer.read().decode()[:120]}")
    except Exception as error:
        body = getattr(error, "read", lambda: b"")()
        fail(f"switchover refused: {error} {body[:200]!r}")
    return name, t


def health(i):
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{ports[i]}/health", timeout=1).status == 200
    except Exception:
        return False


def kill_server(i):
    pid = read_pid(pidfile(f"server{i}"))
    os.kill(pid, signal.SIGKILL)
    t = now()
    faults.append((t, "instance kill"))
    note(f"fault: kill -9 resv-server instance {i} (pid {pid}, port {ports[i]})")
    time.sleep(1)
    spawn([setup["server"], "serve", "--database", setup["url"], "--port", str(ports[i]), "--log-level", setup["logLevel"]],
          os.path.join(work, f"server{i}.log"), f"server{i}", as_postgres=False)
    if wait_for(lambda: health(i), 60, f"resv-server instance {i} serving again"):
        note(f"resv-server instance {i} serving again")
    return t


def write_acks():
    """(acknowledged, sent) of every write: a booking made (not a replay) or a cancel."""
    with lock:
        return sorted([(a["acked"], a["sent"]) for a in book_acks if not a["replayed"]]
                      + [(a["acked"], a["sent"]) for a in cancel_acks])


def first_write_after(t):
    """The first write acknowledged after T: sent after it, or answered more than 0.5 s after it
    (an answer to a request committed just before T arrives within milliseconds)."""
    for acked, sent in write_acks():
        if acked > t and (sent >= t or acked > t + 0.5):
            return acked
    return None


def wait_first_write(t, what, seconds=90):
    deadline = now() + seconds
    while now() < deadline:
        first = first_write_after(t)
        if first is not None:
            note(f"first write acknowledged {first - t:.2f} s after the {what}")
            return first - t
        time.sleep(0.05)
    fail(f"no write acknowledged within {seconds} s after the {what}")
    return None


def longest_gap(t0, t1):
    """The longest time without an acknowledged write between T0 and T1 (from T0 to the first)."""
    points = [t0] + [acked for acked, _ in write_acks() if t0 < acked <= t1]
    return max((b - a for a, b in zip(points, points[1:])), default=t1 - t0)


# --- the run ---------------------------------------------------------------------------------

stopped_at = [float("inf")]
last_phase = [0.0]   # from the last restart of an instance: the feed's delay once all is back
print(f"load: {writers_per_user} writer threads per user x {len(users)} users on 2 instances, "
      f"{load:g} s between faults; {runs} run(s)", flush=True)
watchers = [Watcher(u) for u in range(len(users))]
for w in watchers:
    w.begin()
threads = [threading.Thread(target=w.run, daemon=True) for w in watchers]
threads.append(threading.Thread(target=watch_cluster, daemon=True))
for t in threads:
    t.start()
writer_threads = [threading.Thread(target=writer, args=(u, j), daemon=True)
                  for u in range(len(users)) for j in range(writers_per_user)]
for t in writer_threads:
    t.start()
note("load started")
time.sleep(load)

outages = {"kill": [], "election": [], "switchover": [], "serverKill": []}
for run in range(1, runs + 1):
    note(f"--- run {run} of {runs}")
    # (a) the leader killed
    killed, t_kill = kill_leader()
    if killed:
        outage = wait_first_write(t_kill, "kill")
        elected = next((t for t, name in list(leaders) if t > t_kill and name not in (None, killed["name"])), None)
        if elected:
            outages["election"].append(elected - t_kill)
        if outage is not None:
            outages["kill"].append(outage)
        time.sleep(load)
        wait_for(lambda: leader() not in (None, killed["name"]), 60, "a new leader after the kill")
        restart_node(killed)
        wait_for(healthy, 120, f"{killed['name']} rejoined (leader, sync standby, 3 running)")
        note("cluster healthy again")
        time.sleep(1)
    # (b) switchover
    old, t_switch = switchover()
    if old:
        wait_for(lambda: leader() not in (None, old), 60, "a new leader after the switchover")
        wait_first_write(now(), "switchover's answer")
        time.sleep(load)
        gap = longest_gap(t_switch, now())
        outages["switchover"].append(gap)
        note(f"switchover: longest time without an acknowledged write {gap:.2f} s")
        wait_for(healthy, 120, f"{old} back as a replica (leader, sync standby, 3 running)")
    # (c) one resv-server instance killed and started again
    t_server = kill_server((run - 1) % 2)
    last_phase[0] = now()
    time.sleep(load)
    gap = longest_gap(t_server, now())
    outages["serverKill"].append(gap)
    note(f"instance kill: longest time without an acknowledged write {gap:.2f} s")

stop_writing.set()
stopped_at[0] = now()
note("writers stopping (in-flight requests retried up to 60 s)")
for t in writer_threads:
    t.join(90)
if any(t.is_alive() for t in writer_threads):
    fail("a writer thread never finished")
# Watchers go on until nothing has arrived for 3 s, then drain what is left with wait=0.
deadline = now() + 60
while now() < deadline and now() - max(w.last_arrival for w in watchers) < 3:
    time.sleep(0.2)
stop_watching.set()
for t in threads:
    t.join(25)
if any(t.is_alive() for t in threads):
    fail("a watcher thread never finished")
for w in watchers:
    w.drain()
note("load stopped")

# --- read back and check ----------------------------------------------------------------------
client = Client()


def active_requests(i):
    """resv_http_active_requests of instance I (GET /metrics), this request included; None if unknown."""
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{ports[i]}/metrics", timeout=5).read().decode()
    except Exception:
        return None
    values = [float(line.split()[-1]) for line in text.splitlines()
              if line.startswith("resv_http_active_requests")]
    return int(sum(values)) if values else None


# Nothing is asked any more: a request still under way in an instance (given 15 s to end) is one
# that never will.
deadline = now() + 15
while True:
    hanging = {i: active_requests(i) for i in range(2)}
    if all(n is None or n <= 1 for n in hanging.values()) or now() > deadline:
        break
    time.sleep(1)
for i, n in hanging.items():
    if n is not None and n > 1:
        fail(f"instance {i} still has {n - 1} request(s) under way (resv_http_active_requests) "
             f"after the load stopped: requests that never answered")


def read(u, path):
    for attempt in range(20):
        status, answer, _ = client.request(attempt % 2, "GET", path, tokens[u])
        if status == 200:
            return answer
        time.sleep(0.5)
    fail(f"GET {path} for {users[u]} never answered 200")
    return []


stored = {}        # id -> record
histories = []
for u in range(len(users)):
    for record in read(u, "/reservations"):
        stored[record["id"].lower()] = dict(record, user=u)
    histories.append(read(u, "/history"))
acked_ids = {a["id"] for a in book_acks}
cancelled_ids = {a["id"] for a in cancel_acks}
lost = sorted(acked_ids - set(stored))
for rid in lost:
    a = next(a for a in book_acks if a["id"] == rid)
    fail(f"lost: {users[a['user']]}'s booking {rid} (key {a['key']}, acknowledged at "
         f"{a['acked'] - start:.1f} s after {a['attempts']} attempt(s)) is not read back")
unresolved_books = sum(1 for _, kind, _ in unresolved if kind == "book")
extra = sorted(set(stored) - acked_ids)
if len(extra) > unresolved_books:
    fail(f"{len(extra)} stored bookings no client was told about (only {unresolved_books} requests went unanswered): "
         + ", ".join(extra[:5]))
for key, ids in key_ids.items():
    if len(ids) > 1:
        fail(f"Idempotency-Key {key} answered with {len(ids)} different reservations: {sorted(ids)}")
wrong_status = []
for rid in acked_ids & set(stored):
    want = "cancelled" if rid in cancelled_ids else "confirmed"
    if rid not in cancelled_ids and any(kind == "cancel" and x == rid for _, kind, x in unresolved):
        continue
    if stored[rid]["status"] != want:
        wrong_status.append(rid)
        fail(f"{rid}: stored as {stored[rid]['status']}, the clients were told {want}")

# Capacity: the server's availability, and the same sum from the records read back.
capacity_rows = []
for landmark, capacity, days in ((RAINIER, RAINIER_CAPACITY, rainier_days), (VALLEY, VALLEY_CAPACITY, valley_days)):
    rows = read(0, f"/landmarks/{landmark}/availability?from={days[0]}&to={days[-1]}")
    counted = collections.Counter()
    for record in stored.values():
        if record["landmarkId"].lower() == landmark and record["status"] in ("confirmed", "pending"):
            counted[record["date"][:10]] += record["partySize"]
    for row in rows:
        capacity_rows.append((landmark, row["date"], row["taken"], row["capacity"]))
        if row["taken"] > row["capacity"] or counted[row["date"]] > capacity:
            fail(f"over capacity: {landmark} on {row['date']}: taken {row['taken']} "
                 f"(records: {counted[row['date']]}) of {row['capacity']}")
        elif row["taken"] != counted[row["date"]]:
            fail(f"availability of {landmark} on {row['date']} says {row['taken']} taken, the records {counted[row['date']]}")

# PostgreSQL's kept day counts (day_counts, schema 10) against a count of each day's rows, on the
# primary, in one snapshot: a change and its count commit together, whatever instance or leader died.
kept_sql = """
SELECT c.landmark_id || ' ' || c.start_at::TEXT || ': kept ' || c.taken::TEXT || ', rows '
    || COALESCE(SUM(r.party_size), 0)::TEXT
FROM day_counts c LEFT JOIN reservations r ON r.landmark_id = c.landmark_id
    AND r.starts_at >= c.start_at AND r.starts_at < c.end_at
    AND r.status IN ('pending', 'confirmed') AND r.party_size BETWEEN 1 AND 10000
GROUP BY c.landmark_id, c.start_at, c.end_at, c.taken
HAVING c.taken <> COALESCE(SUM(r.party_size), 0)
"""
kept = subprocess.run(["psql", "-XAtq", setup["url"], "-c", kept_sql], capture_output=True, text=True, timeout=120)
if kept.returncode != 0:
    fail(f"the kept day counts could not be read: {kept.stderr.strip()[:300]}")
for line in kept.stdout.splitlines():
    fail(f"kept day count differs from its rows: {line}")
counted_days = subprocess.run(["psql", "-XAtq", setup["url"], "-c", "SELECT COUNT(*) FROM day_counts"],
                              capture_output=True, text=True, timeout=120)
kept_days = counted_days.stdout.strip()
for line in failover_checks.day_count_failures(kept_days, counted_days.returncode, len(book_acks)):
    fail(line)
note(f"kept day counts: {kept_days} days, each checked against its rows")

# The feeds: each watcher against its user's history, and against what the clients were told.
feed_rows = []
for w in watchers:
    truth = collections.Counter(key_of(e) for e in histories[w.user])
    told = {(a["id"], "created", 1) for a in book_acks if a["user"] == w.user} | \
           {(a["id"], "cancelled", a["version"]) for a in cancel_acks if a["user"] == w.user}
    missed = set(truth) - set(w.seen)
    duplicated = sum(n - 1 for n in w.seen.values() if n > 1)
    phantom = set(w.seen) - set(truth)
    not_in_history = told - set(truth)
    feed_rows.append((users[w.user], len(truth), len(w.seen), len(missed), duplicated, len(phantom), w.late,
                      len(told), len(not_in_history)))
    if missed:
        fail(f"{users[w.user]}'s watcher missed {len(missed)} of {len(truth)} changes, e.g. {sorted(missed)[:3]}")
    if duplicated:
        fail(f"{users[w.user]}'s watcher got {duplicated} changes more than once")
    if phantom:
        fail(f"{users[w.user]}'s watcher got {len(phantom)} changes not in the history, e.g. {sorted(phantom)[:3]}")
    if not_in_history:
        fail(f"{len(not_in_history)} acknowledged changes of {users[w.user]} are not in the history, "
             f"e.g. {sorted(not_in_history)[:3]}")
    if any(n > 1 for n in truth.values()):
        fail(f"{users[w.user]}'s history holds a change twice")

# The feed's delay, acknowledged -> seen by the watcher: overall, and after the last fault (a
# notification channel not listened to again would show here as delays up to the poll's 5 s).
acked_at = {(a["id"], "created", 1): a["acked"] for a in book_acks}
acked_at.update({(a["id"], "cancelled", a["version"]): a["acked"] for a in cancel_acks})
delays, last_delays = [], []
for w in watchers:
    for key, arrived in w.arrivals.items():
        if key in acked_at:
            delays.append(arrived - acked_at[key])
            if acked_at[key] > last_phase[0] + 1:
                last_delays.append(arrived - acked_at[key])
delays.sort()
last_delays.sort()


def quantiles(values):
    if not values:
        return "no deliveries"
    q = lambda f: values[min(len(values) - 1, int(f * len(values)))] * 1000
    return f"p50 {q(.5):.0f} ms, p99 {q(.99):.0f} ms, max {values[-1] * 1000:.0f} ms over {len(values)}"


# The contract: during an outage a request waits at most 2 s, then 503. One with no answer at all
# within the client's timeout (30 s; a long poll its wait + 15 s) is one the server lost.
unanswered = sorted(x for x in slow if x[4] == "timeout")


def fault_before(t):
    """The fault a request sent at T met: the last one begun before T + 1 s (one in flight meets it)."""
    met = [(ft, kind) for ft, kind in faults if ft <= t + 1]
    return f"{met[-1][1]} at {met[-1][0] - start:.1f} s" if met else "no fault"


if unanswered:
    by_fault = collections.Counter(fault_before(b) for b, _, _, _, _ in unanswered)
    fail(f"{len(unanswered)} request(s) got no answer within the client's timeout (30 s; long polls wait + 15 s): "
         + ", ".join(f"{n} sent just before or during the {f}" for f, n in sorted(by_fault.items(), key=lambda kv: float(kv[0].split(' at ')[-1][:-2]) if ' at ' in kv[0] else -1.0))
         + "; e.g. " + "; ".join(f"{route} to instance {i} sent at {b - start:.1f} s" for b, _, route, i, _ in unanswered[:4]))

# Server logs: anything logged at error or critical, and requests a running instance never answered
# (from the line each finished request has at info: the ids of a process count up).
server_logs = {i: open(os.path.join(work, f"server{i}.log"), errors="replace").read() for i in range(2)}
log_lines = failover_checks.error_lines(server_logs)
for line in log_lines:
    fail(line)
never_finished, cut_by_kills = failover_checks.never_answered(server_logs, setup.get("logLevel"))
for line in never_finished:
    fail(line)

# --- summary ----------------------------------------------------------------------------------
elapsed = now() - start
fives = sum(n for (route, status), n in statuses.items() if isinstance(status, int) and status >= 500 and status != 503)
print()
print(f"requests: {requests[0]} in {elapsed:.0f} s; bookings acknowledged {len(book_acks)} "
      f"({sum(a['replayed'] for a in book_acks)} as replays of a key), refused {sum(refusals.values())} "
      f"(noCapacity), cancels acknowledged {len(cancel_acks)}, unanswered at the end {len(unresolved)}")
print(f"read back: {len(stored)} reservations; lost {len(lost)}; not told {max(0, len(extra) - unresolved_books)}; "
      f"status not as told {len(wrong_status)}")
for landmark, capacity in ((RAINIER, RAINIER_CAPACITY), (VALLEY, VALLEY_CAPACITY)):
    rows = [r for r in capacity_rows if r[0] == landmark]
    name = "Mount Rainier" if landmark == RAINIER else "Yosemite Valley"
    print(f"{name}: max day {max((r[2] for r in rows), default=0)} of {capacity} "
          f"(days: {', '.join(str(r[2]) for r in rows)})")
print(f"{'watcher':8} {'history':>7} {'seen':>6} {'missed':>6} {'dup':>4} {'phantom':>7} {'late':>5} "
      f"{'told':>6} {'told, not in history':>21}")
for row in feed_rows:
    print(f"{row[0]:8} {row[1]:7} {row[2]:6} {row[3]:6} {row[4]:4} {row[5]:7} {row[6]:5} {row[7]:6} {row[8]:21}")
print(f"feed delay, acknowledged -> seen: {quantiles(delays)}; after the last fault: {quantiles(last_delays)}")
print("statuses: " + ", ".join(f"{route} {status}: {n}" for (route, status), n in
                               sorted(statuses.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))))
print(f"5xx other than 503: {fives}; 503s by code and Retry-After: "
      + (", ".join(f"{code} {after}: {n}" for (code, after), n in sorted(unavailable.items(), key=str)) or "none"))
print("requests under way in the instances after the load stopped (resv_http_active_requests, less the "
      "/metrics request itself): " + ", ".join(f"instance {i}: {'?' if n is None else n - 1}" for i, n in hanging.items()))
print(f"requests answered after more than 3 s (long polls' 200s aside) or not within 30 s: {len(slow)}")
for began, took, route, instance, status in sorted(slow)[:12]:
    print(f"  sent at {began - start:6.1f} s to instance {instance}: {route} -> {status} after {took:.1f} s")


def spread(values):
    if not values:
        return "none"
    return (f"p50 {statistics.median(values):.2f} s, max {max(values):.2f} s over {len(values)} "
            f"({', '.join(f'{v:.2f}' for v in values)})")


if setup.get("logLevel") in failover_checks.REQUEST_LOG_LEVELS:
    print(f"requests that never finished, from the servers' request logs: {len(never_finished)} "
          f"(and {cut_by_kills} cut by the kill -9 of an instance)")
else:
    print(f"requests that never finished: not computed at log level {setup.get('logLevel')!r}")
for line in never_finished[:12]:
    print("  " + line)
print(f"outage, leader killed (kill -> first acknowledged write): {spread(outages['kill'])}")
print(f"  of which Patroni electing a new leader (kill -> new leader in GET /cluster): {spread(outages['election'])}")
print(f"outage, switchover (longest time without an acknowledged write): {spread(outages['switchover'])}")
print(f"outage, one resv-server instance killed (longest gap): {spread(outages['serverKill'])}")
if log_lines:
    print(f"server log lines at error level: {len(log_lines)}; first ones:")
    for line in log_lines[:8]:
        print("  " + line)
summary = {
    "requests": requests[0], "seconds": round(elapsed, 1), "runs": runs, "load": load,
    "writersPerUser": writers_per_user, "acknowledged": len(book_acks), "cancels": len(cancel_acks),
    "refused": sum(refusals.values()), "unresolved": len(unresolved), "readBack": len(stored), "lost": len(lost),
    "maxDay": {"Mount Rainier": max((r[2] for r in capacity_rows if r[0] == RAINIER), default=0)},
    "feeds": [dict(zip(("user", "history", "seen", "missed", "duplicated", "phantom", "late"), r)) for r in feed_rows],
    "statuses": {f"{route} {status}": n for (route, status), n in statuses.items()},
    "status5xx": fives, "outages": {k: [round(v, 3) for v in vs] for k, vs in outages.items()},
    "failures": failures,
}
if setup.get("json"):
    json.dump(summary, open(setup["json"], "w"), indent=2, sort_keys=True)
if failures:
    print(f"FAILED: {len(failures)} check(s) failed:")
    for line in failures[:20]:
        print("  " + line)
    sys.exit(1)
print("PASSED: no acknowledged write lost, no day over capacity, every kept day count its rows', every change seen once "
      "by its watcher, no 5xx but the outage's 503s, no thread died, no server error line, every request answered")
