#!/usr/bin/env python3
"""Load, faults and checks of scripts/faults (docs/testing.md, "Faults"). Standard library only.

Run by scripts/faults with the path of its setup.json (the cluster's nodes, the three resv-server
instances and the ports their clients reach them by, the proxies' control port, the users' tokens,
the faults asked for). For each fault in turn: writer threads of every user run a mixed load
through all three instances, the fault is made and healed (again and again while its seconds
last), the load stops, every indeterminate request is resolved, and the checker
(fault_checks.py) runs over everything so far. Watchers (two a user, long-polling GET /changes)
and readers (one a user, re-reading the user's whole feed from the start) run the whole time.

A request's outcome: acknowledged (2xx), refused (4xx: nothing done), or indeterminate (no
answer, a timeout, a 5xx or 429, after three tries under its Idempotency-Key on three instances,
or after one for a third of them).
Every booking carries an id the client made, so the final read says whether an indeterminate one
was made; POST /settle {"key"} settles the rest (and every other indeterminate change).
Exit 0 when every invariant holds for every fault, 1 naming each that failed.
"""
import collections, datetime, http.client, json, os, random, re, signal, socket, subprocess, sys, threading, time
import urllib.parse, urllib.request, uuid

sys.dont_write_bytecode = True  # no __pycache__ left in the repository
import fault_checks as checks  # noqa: E402
from cluster_control import Cluster  # noqa: E402

setup = json.load(open(sys.argv[1]))
cluster = Cluster(setup)
users, tokens, ports = setup["users"], setup["tokens"], setup["clientPorts"]
ttl, seconds, seed_bug = setup["ttl"], setup["seconds"], setup["seedBug"]
# --control NAME: after the faults, a phase of the seeded bug NAME on the same cluster, which must
# fail its invariant (and only the ones the bug implies) while every fault before holds.
control = setup.get("negativeControl") or ""
CONTROL_CATCHES = {"lost-ack": (checks.LOST, checks.STALE), "skip-feed": (checks.GAP,)}
INSTANCES = len(ports)
start = time.monotonic()

# Two landmark-days that fill (Mount Rainier, 120 a day) and where waitlists form, and roomier
# days at Turtle Rock (150). 20:00 UTC is midday in Los Angeles, both landmarks' zone.
RAINIER, TURTLE = "12b84d1a-6e75-4c9a-a791-778746bf7bcd", "cada0a12-4d1c-4c72-ad20-9d2741c35bd3"
CAPACITIES = {RAINIER: 120, TURTLE: 150}
first_day = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=30)


# Each fault books days of its own (a week later than the fault before), so a long run's days do
# not all fill during the first fault and leave the others mostly refusals.


def days_of(phase):
    first = first_day + datetime.timedelta(days=7 * phase)
    return {RAINIER: [first + datetime.timedelta(days=k) for k in range(2)],
            TURTLE: [first + datetime.timedelta(days=k) for k in range(6)]}


at = lambda day: f"{day.isoformat()}T20:00:00Z"

BOOKINGS = ("book", "hold", "waitlist", "series")
lock = threading.Lock()
failures = []
ops = []              # every operation: dict(user, kind, id, key, sent, answered, outcome, status, attempts, written)
attempts = []         # every request of a writer: (sent, answered, ok)
http_requests = [0]
stop_writing = threading.Event()
stop_watching = threading.Event()
pause_reading = threading.Event()


def now():
    return time.monotonic()


def note(text):
    print(f"  {now() - start:7.1f} s  {text}", flush=True)


def fail(text):
    with lock:
        failures.append(text)
    print(f"  FAILURE: {text}", flush=True)


def thread_died(args):
    if args.exc_type is not SystemExit:
        fail(f"thread died: {args.thread.name if args.thread else '?'}: {args.exc_type.__name__}: {args.exc_value}")


threading.excepthook = thread_died


class Client:
    """Keep-alive connections to the instances (through their client proxies), reopened after a failure."""

    def __init__(self):
        self.connections = {}

    def request(self, instance, method, path, token, body=None, headers=None, timeout=10.0):
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
        with lock:
            http_requests[0] += 1
        try:
            connection.request(method, path, body=data, headers=head)
            answer = connection.getresponse()
            raw = answer.read()
        except (OSError, http.client.HTTPException):
            connection.close()
            self.connections.pop(instance, None)
            return None, None
        try:
            decoded = json.loads(raw) if raw else None
        except ValueError:
            decoded = None
        if answer.getheader("Connection", "").lower() == "close":
            connection.close()
            self.connections.pop(instance, None)
        return answer.status, decoded


def indeterminate(status):
    return status is None or status == 429 or status >= 500


def written(kind, answer):
    """The changes an acknowledged answer says were made, as (reservation, version) names."""
    if kind == "undo":
        return [checks.written_key(checks.change_key(c)) for c in (answer or {}).get("changes", [])]
    if kind == "series" and isinstance(answer, list):
        return [(r["id"].lower(), r.get("version")) for r in answer
                if isinstance(r, dict) and isinstance(r.get("id"), str)]
    if isinstance(answer, dict) and isinstance(answer.get("id"), str):
        return [(answer["id"].lower(), answer.get("version"))]
    return []


# --- the load -------------------------------------------------------------------------------

def writer(u, j, phase):
    rng = random.Random(f"{phase}-{u}-{j}-{seed_bug}")
    client = Client()
    instance = (u + j) % INSTANCES
    token = tokens[u]
    mine, held = [], []
    DAYS = days_of(phase)

    def send(kind, method, path, body=None, rid=None, ids=None):
        nonlocal instance
        key = f"faults-{uuid.UUID(int=rng.getrandbits(128), version=4)}"
        op = {"user": u, "kind": kind, "id": rid, "ids": ids or ([rid] if kind in BOOKINGS else []), "key": key,
              "sent": now(), "attempts": 0, "phase": phase}
        # One client in three gives up after the first try: its change is left indeterminate for
        # the final read and POST /settle to resolve; the others try three instances.
        for attempt in range(rng.choice((1, 3, 3))):
            op["attempts"] += 1
            sent = now()
            status, answer = client.request(instance, method, path, token, body, {"Idempotency-Key": key})
            answered = now()
            with lock:
                attempts.append((sent, answered, not indeterminate(status)))
            op.update(answered=answered, status=status)
            if not indeterminate(status):
                break
            instance = (instance + 1) % INSTANCES
            if stop_writing.is_set() and attempt >= 1:
                break
            time.sleep(0.1)
        if status is not None and 200 <= status < 300:
            op["outcome"], op["written"] = "acknowledged", written(kind, answer)
        elif indeterminate(status):
            op["outcome"], op["written"] = "indeterminate", []
        else:
            op["outcome"], op["written"] = "refused", []
            op["code"] = answer.get("code") if isinstance(answer, dict) else None
            if status not in (404, 409, 412):
                fail(f"unexpected answer to {kind}: {status} {answer!r:.200}")
        with lock:
            ops.append(op)
        return op, answer

    def book(kind):
        landmark = RAINIER if kind == "waitlist" or rng.random() < 0.5 else TURTLE
        rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        body = {"id": rid, "landmarkId": landmark, "date": at(rng.choice(DAYS[landmark])),
                "partySize": rng.randint(1, 8)}
        if kind == "hold":
            body["hold"] = 600
        if kind == "waitlist":
            body["waitlist"] = True
        op, answer = send(kind, "POST", "/reservations", body, rid)
        if op["outcome"] == "acknowledged":
            (held if isinstance(answer, dict) and answer.get("status") == "held" else mine).append(rid)

    def series():
        # Three visits a day apart at Turtle Rock, one all-or-nothing batch under one key
        # (what `resv reserve --every day --count 3` sends).
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        first = rng.randrange(len(DAYS[TURTLE]) - 2)
        size = rng.randint(1, 4)
        visits = [{"id": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "landmarkId": TURTLE,
                   "date": at(DAYS[TURTLE][first + k]), "partySize": size, "series": sid} for k in range(3)]
        ids = [v["id"] for v in visits]
        op, _ = send("series", "POST", "/reservations/batch", {"reservations": visits}, None, ids)
        if op["outcome"] == "acknowledged":
            mine.extend(ids)

    while not stop_writing.is_set():
        roll = rng.random()
        if roll < 0.05:
            series()
        elif roll < 0.35 or not mine:
            book("book")
        elif roll < 0.45:
            book("hold") if len(held) < 8 else book("book")
        elif roll < 0.55:
            book("waitlist")
        elif roll < 0.63 and held:
            rid = held.pop(rng.randrange(len(held)))
            op, _ = send("confirm", "POST", f"/reservations/{rid}/confirm", None, rid)
            if op["outcome"] == "acknowledged":
                mine.append(rid)
        elif roll < 0.75:
            rid = rng.choice(mine)
            send("modify", "PATCH", f"/reservations/{rid}", {"partySize": rng.randint(1, 8)}, rid)
        elif roll < 0.9:
            rid = mine.pop(rng.randrange(len(mine)))
            send("cancel", "DELETE", f"/reservations/{rid}", None, rid)
        else:
            send("undo", "POST", "/undo", None)


class Watcher:
    """One of a user's watchers: long polls GET /changes on its instance, from the start cursor."""

    def __init__(self, u, w, cursor):
        self.user, self.name = u, f"{users[u]}'s watcher {w + 1}"
        self.instance = (u + w) % INSTANCES
        self.client, self.cursor = Client(), cursor
        self.seen = []
        # The seeded bug: the change received as number skip_at dropped (--seed-bug skip-feed: the third).
        self.skip_at = 3 if seed_bug == "skip-feed" and u == 0 and w == 0 else None
        self.received = 0
        self.last_arrival = now()

    def poll(self, wait):
        path = f"/changes?after={urllib.parse.quote(self.cursor, safe='')}&wait={wait}"
        status, page = self.client.request(self.instance, "GET", path, tokens[self.user], timeout=wait + 15)
        if status == 200 and isinstance(page, dict):
            for change in page["changes"]:
                self.received += 1
                if self.received == self.skip_at:
                    continue  # the seeded bug: one change dropped on the floor
                self.seen.append(checks.change_key(change))
            if page["changes"]:
                self.last_arrival = now()
            self.cursor = page["cursor"]
            return len(page["changes"])
        if status is not None and not indeterminate(status):
            fail(f"{self.name}: unexpected answer {status} {page!r:.200}")
            raise SystemExit
        time.sleep(0.3)
        return None

    def run(self):
        while not stop_watching.is_set():
            self.poll(5)


def full_read(client, u, cursor, instance):
    """The user's whole feed from CURSOR (every page, wait=0) on INSTANCE; None if it failed."""
    changes = []
    for _ in range(1000):
        path = f"/changes?after={urllib.parse.quote(cursor, safe='')}&wait=0"
        status, page = client.request(instance, "GET", path, tokens[u], timeout=10)
        if status != 200 or not isinstance(page, dict):
            return None
        changes += [checks.change_key(c) for c in page["changes"]]
        if not page["changes"]:
            return changes
        cursor = page["cursor"]
    return None


reads = []   # (name, began, list) of the readers' full reads of this phase


def reader(u, cursor):
    client, k = Client(), u
    while not stop_watching.is_set():
        if pause_reading.is_set():
            time.sleep(0.2)
            continue
        k = (k + 1) % INSTANCES
        began = now()
        got = full_read(client, u, cursor, k)
        if got is not None:
            with lock:
                reads.append((f"{users[u]}'s reader (instance {k}, begun at {began - start:.1f} s)", began, got, u))
        time.sleep(0.5)


# --- faults ---------------------------------------------------------------------------------

def proxy(command):
    with socket.create_connection(("127.0.0.1", setup["control"]), timeout=5) as s:
        s.sendall(command.encode() + b"\n")
        answer = s.makefile().readline().strip()
    if answer != "ok" and not answer.startswith("{"):
        raise SystemExit(f"faults: the proxy refused {command!r}: {answer}")
    return answer


def node_routes(name, kinds=("etcd", "repl", "rest")):
    return ",".join(f"{kind}-{name}" for kind in kinds)


def all_routes(kinds):
    names = []
    for node in setup["nodes"]:
        names += [f"{kind}-{node['name']}" for kind in kinds if kind != "db"]
        if "db" in kinds:
            names += [f"db-{k}-{node['name']}" for k in range(INSTANCES)]
    return ",".join(names)


def wait_for(condition, limit):
    deadline = now() + limit
    while now() < deadline:
        if condition():
            return True
        time.sleep(0.25)
    return False


def server_health(k):
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{setup['serverPorts'][k]}/health", timeout=2).status == 200
    except Exception:
        return False


def stop_node(node):
    for pid in (cluster.patroni_pid(node), cluster.postmaster_pid(node)):
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for pid in (cluster.patroni_pid(node), cluster.postmaster_pid(node)):
        if pid:
            wait_for(lambda: not cluster.alive(pid), 10)


def recover(old=None, marks=None):
    """Waits for a healthy cluster (a leader, a sync standby, three running). A node whose
    PostgreSQL logged, since MARKS (its log's sizes when the fault began), that the new leader's
    timeline forked off before its own position is wiped and started again at once (a base
    backup; there is no pg_rewind here). A node that has not rejoined within 2 ttl is too (one
    starting or taking its base backup is waited for, not begun again): a
    member other than the leader not running, or missing, or a replica that is not the sync
    standby and has no measured lag (an old leader whose WAL went past the new one's). The leader
    is never wiped (its commits may be on no other node), and nothing is while there is none."""
    # A node whose PostgreSQL says the new leader's timeline forked off before where it is (it wrote
    # past the fork: it cannot follow without a rewind) is wiped at once rather than waited for.
    marks = marks or {n["name"]: log_size(n) for n in setup["nodes"]}
    wiped = set()

    def healthy_or_wipe_diverged():
        leader = cluster.leader()
        # A node ahead of the leader first: the cluster may look healthy (a leader, a sync standby,
        # three running) while its leader lacks that node's commits.
        for n in setup["nodes"]:
            if leader not in (None, n["name"]) and ahead_of_leader(n["name"], marks, lasting=5):
                wipe({n["name"]}, marks)  # refused: the run fails on it, the nodes are kept
        if broken or cluster.healthy():
            return True
        for n in setup["nodes"]:
            if leader not in (None, n["name"]) and n["name"] not in wiped and DIVERGED in log_since(n, marks[n["name"]]):
                wiped.add(n["name"])
                wipe({n["name"]}, marks)
        return False

    if wait_for(healthy_or_wipe_diverged, 2 * ttl):
        return not broken
    if wiped and wait_for(cluster.healthy, 30):
        return True
    if not wait_for(cluster.leader, 60):
        fail(f"setup: no leader within 80 s of the fault's end: {cluster.roles()}")
        return False
    leader = cluster.leader()
    stuck = set()
    for m in cluster.members():
        if m["name"] == leader or m.get("role") in ("leader", "sync_standby"):
            continue
        if m.get("state") in ("starting", "creating replica"):
            continue  # a base backup or a start under way: waited for below, not begun again
        if m.get("state") not in ("running", "streaming") or not isinstance(m.get("lag"), int):
            stuck.add(m["name"])
    stuck |= {n["name"] for n in setup["nodes"]} - {m["name"] for m in cluster.members()}
    wipe(stuck - {leader}, marks)
    if broken:
        return False
    if wait_for(cluster.healthy, 30):
        return True
    # Still no sync standby: the old leader, when it is not the leader now, and every replica that
    # is not the sync standby.
    leader = cluster.leader()
    if leader is not None:
        wipe(({m["name"] for m in cluster.members() if m.get("role") not in ("leader", "sync_standby")}
              | ({old} if old else set())) - {leader} - stuck, marks)
    if broken:
        return False
    if wait_for(cluster.healthy, 120):
        return True
    fail(f"setup: the cluster was not healthy again within 230 s: {cluster.roles()}")
    return False


DIVERGED = "forked off current database system timeline"


def log_size(node):
    try:
        return os.path.getsize(node["log"])
    except OSError:
        return 0


def log_since(node, offset):
    try:
        with open(node["log"], "rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")
    except OSError:
        return ""


# PostgreSQL's words on a standby asked to follow a primary of an earlier timeline than its own.
BEHIND = re.compile(r"highest timeline (\d+) of the primary is behind recovery timeline (\d+)")
broken = []  # the nodes found ahead of the leader: the cluster is then left as it is


ahead_since = {}  # node: when it was first seen on a later timeline than the leader's


def live_timeline(name):
    """The timeline node NAME's PostgreSQL is on now, as its Patroni says (GET /patroni asks it;
    the DCS's copy lags a loop behind a promotion), or None."""
    try:
        status = json.load(urllib.request.urlopen(f"http://127.0.0.1:{cluster.node(name)['rest']}/patroni", timeout=1))
        return status.get("timeline")
    except Exception:
        return None


def ahead_of_leader(name, marks, lasting=0):
    """Why node NAME holds a later timeline than the leader's (commits the leader lacks), or None:
    the nodes' own timelines, one ahead for LASTING seconds at least (right after a promotion a
    replica that follows the new leader is on its timeline before the leader says so), or its
    PostgreSQL's log since MARKS saying the primary's timeline is behind its own."""
    leader = cluster.leader()
    if leader in (None, name):
        return None
    behind = BEHIND.search(log_since(cluster.node(name), (marks or {}).get(name, 0)))
    if behind:
        return f"its PostgreSQL says the primary's timeline {behind[1]} is behind its own {behind[2]}"
    mine, theirs = live_timeline(name), live_timeline(leader)
    if not (isinstance(mine, int) and isinstance(theirs, int) and mine > theirs):
        ahead_since.pop(name, None)
        return None
    if now() - ahead_since.setdefault(name, now()) < lasting:
        return None
    return f"its timeline {mine} is later than the leader {leader}'s {theirs}"


def wipe(names, marks=None):
    """Wipes each node of NAMES and starts it again, but never one ahead of the leader: its
    timeline holds commits the leader lacks (a former leader took the lock back, as Patroni 3.0.2
    does after a pause), and a base backup from the leader would throw them away. That fails
    checks.SPLIT, and the run stops with the cluster as it is."""
    for name in sorted(names):
        why = ahead_of_leader(name, marks)
        if why:
            if not broken:
                fail(f"{checks.SPLIT}: {name} not wiped: {why} (leader {cluster.leader()}, {cluster.roles()})")
            broken.append(name)
            continue
        note(f"{name} did not rejoin ({cluster.roles().get(name)}): wiped and started again")
        node = cluster.node(name)
        stop_node(node)
        cluster.restart_node(node)


def leader_node():
    wait_for(lambda: cluster.leader() is not None, 60)
    name = cluster.leader()
    if name is None:
        raise SystemExit("faults: no leader to make a fault on")
    return cluster.node(name)


def new_leader(old):
    """A leader other than OLD as a node other than OLD sees it (OLD's own view may be stale: it
    cannot reach etcd), or None."""
    for node in setup["nodes"]:
        if node["name"] == old:
            continue
        try:
            state = json.load(urllib.request.urlopen(f"http://127.0.0.1:{node['rest']}/cluster", timeout=1))
        except Exception:
            continue
        for m in state.get("members", []):
            if m.get("role") == "leader" and m.get("state") == "running" and m["name"] != old:
                return m["name"]
    return None


def hold_past_lease(old):
    """Holds a fault on the leader OLD past its lease: until another node has taken the lead (the
    lease expired; at most ttl + 10 s), then a second more, so the new leader takes writes while
    OLD still believes it leads."""
    wait_for(lambda: new_leader(old) is not None, ttl + 10)
    time.sleep(1)


def stopped(pids):
    with open(os.path.join(setup["work"], "stopped"), "w") as f:
        f.write(" ".join(str(p) for p in pids))


def fault_kill(cycle):
    node = leader_node()
    note(f"kill -9 of the leader {node['name']} (patroni and postmaster)")
    stop_node(node)
    wait_for(lambda: cluster.leader() not in (None, node["name"]), 60)
    cluster.restart_node(node)
    return node["name"], 0


def fault_pause(cycle):
    node = leader_node()
    # PostgreSQL first: its Patroni then stops too, in the middle of a loop that began while it held
    # the lock, and goes on from there when it is continued (Patroni 3.0.2 then takes the lock back).
    if cycle % 2 == 1:
        what, pids = "Patroni", [cluster.patroni_pid(node)]
    else:
        postmaster = cluster.postmaster_pid(node)
        what, pids = "PostgreSQL", [postmaster] + cluster.children(postmaster)
    # One instance cut from the paused node: it moves to the new leader when there is one, while
    # the others still reach the deposed one (its PostgreSQL answers while Patroni is stopped).
    k = cycle % INSTANCES
    cut = f"db-{k}-{node['name']}"
    note(f"SIGSTOP of the leader {node['name']}'s {what} ({len(pids)} process(es)) until another leads, "
         f"instance {k} cut from it")
    proxy(f"set {cut} blackhole")
    stopped(pids)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            pass  # a backend that ended meanwhile (the postmaster, stopped first, starts no other)
    hold_past_lease(node["name"])
    # Instance k on the new leader, the others' reads still reaching the paused one, for 3 s.
    if wait_for(lambda: server_health(k), 2 * ttl):
        note(f"instance {k} answers from the new leader {new_leader(node['name'])}")
    time.sleep(3)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    stopped([])
    proxy(f"set {cut} open")
    note(f"SIGCONT of {node['name']}'s {what}; leader now {cluster.leader()}")
    return node["name"], 0


def fault_partition_leader(cycle):
    node = leader_node()
    routes = node_routes(node["name"])
    note(f"partition: the leader {node['name']} cut from etcd and the replicas until another leads")
    proxy(f"set {routes} blackhole")
    hold_past_lease(node["name"])
    proxy(f"set {routes} open")
    note(f"healed; leader now {cluster.leader()}")
    return node["name"], 0


def fault_one_way(cycle):
    node = leader_node()
    routes = node_routes(node["name"])
    note(f"one-way: {node['name']}'s answers from etcd and its bytes to the replicas held until another leads")
    proxy(f"set {routes} oneway hold=down")
    hold_past_lease(node["name"])
    proxy(f"set {routes} open")
    note(f"healed; leader now {cluster.leader()}")
    return node["name"], 0


def fault_partition_instance(cycle):
    k = cycle % INSTANCES
    routes = ",".join(f"db-{k}-{n['name']}" for n in setup["nodes"])
    note(f"partition: resv-server instance {k} cut from every node until it says so, at most 8 s "
         "(its clients still reach it)")
    proxy(f"set {routes} blackhole")
    wait_for(lambda: not server_health(k), 8)
    time.sleep(1)
    proxy(f"set {routes} open")
    wait_for(lambda: server_health(k), 60)
    return None, 0


def fault_slow(cycle):
    routes = all_routes(("etcd", "repl", "db"))
    hold = min(seconds, 20)
    note(f"slow: every database, etcd and replication link 40 +- 20 ms, 2% 200 ms more, for {hold} s")
    proxy(f"set {routes} slow delay=40 jitter=20 loss=0.02")
    time.sleep(hold)
    proxy(f"set {routes} open")
    return None, 0


def fault_drop_answers(cycle):
    routes = ",".join(f"client-{k}" for k in range(INSTANCES))
    hold = min(seconds, 20)
    note(f"drop-answers: 10% of every instance's answers dropped after it acted, for {hold} s")
    proxy(f"set {routes} drop-answers p=0.1")
    time.sleep(hold)
    proxy(f"set {routes} open")
    return None, 0


def fault_control(cycle):
    """The negative control's phase: no fault, the seeded bug made at its start."""
    hold = max(seconds, 3)
    note(f"negative control {control}: the seeded bug for {hold} s, no fault")
    if control == "lost-ack":
        proxy("set client-0 lost-ack n=2")
    else:
        victim = watchers[0]
        victim.skip_at = victim.received + 1
    time.sleep(hold)
    proxy("set client-0 open")
    return None, 0


FAULTS = {"control": fault_control, "kill": fault_kill, "pause": fault_pause, "partition-leader": fault_partition_leader,
          "partition-instance": fault_partition_instance, "one-way": fault_one_way, "slow": fault_slow,
          "drop-answers": fault_drop_answers}


# --- the run --------------------------------------------------------------------------------

def start_cursor(u):
    client = Client()
    for _ in range(100):
        status, page = client.request(u % INSTANCES, "GET", "/changes", tokens[u])
        if status == 200:
            return page["cursor"]
        time.sleep(0.2)
    raise SystemExit(f"faults: GET /changes never answered 200 for {users[u]}")


cursors = [start_cursor(u) for u in range(len(users))]
watchers = [Watcher(u, w, cursors[u]) for u in range(len(users)) for w in range(2)]
background = [threading.Thread(target=w.run, name=w.name, daemon=True) for w in watchers]
background += [threading.Thread(target=reader, args=(u, cursors[u]), name=f"{users[u]}'s reader", daemon=True)
               for u in range(len(users))]
for t in background:
    t.start()
print(f"load: {setup['writers']} writers a user x {len(users)} users on {INSTANCES} instances, 2 watchers "
      f"and a reader a user; faults {', '.join(setup['faults'])}, {seconds} s each"
      + (f"; seeded bug {seed_bug}" if seed_bug else ""), flush=True)
if seed_bug == "lost-ack":
    proxy("set client-0 lost-ack n=2")

reports = []
stored_all = {}
control_failures_from = None
# --check-once: the faults one after the other under one load, checked once after the last
# (and the control after them, checked on its own); else each fault is a load and a check.
phases = setup["faults"] + (["control"] if control else [])
check_once = setup.get("checkOnce", False)
for phase, fault in enumerate(phases):
    note(f"--- fault {fault}" if fault != "control" else f"--- negative control {control}")
    group_start = not check_once or phase == 0 or fault == "control"
    group_end = not check_once or phase == len(phases) - 1 or phases[phase + 1] == "control"
    if group_start:
        failures_before = len(failures)
        if fault == "control":
            control_failures_from = failures_before
        ops_before, http_before = len(ops), http_requests[0]
        group, windows = [], []
        stop_writing.clear()
        writers = [threading.Thread(target=writer, args=(u, j, phase), name=f"writer {users[u]} {j}", daemon=True)
                   for u in range(len(users)) for j in range(setup["writers"])]
        for t in writers:
            t.start()
        # The load under way (a few operations answered) before the fault.
        wait_for(lambda: len(ops) - ops_before >= 8, 10)
        group_began = now()
    group.append(fault)
    own_ops, own_http, own_windows = len(ops), http_requests[0], []
    began = now()
    cycle = 0
    if broken:
        note(f"fault {fault} not made: the cluster was left as it was ({checks.SPLIT})")
    while not broken and (cycle == 0 or now() < began + seconds):
        t_fault = now()
        marks = {n["name"]: log_size(n) for n in setup["nodes"]}
        old, _ = FAULTS[fault](cycle)
        t_healed = now()
        windows.append((t_fault, t_healed))
        own_windows.append((t_fault, t_healed))
        if fault in ("kill", "pause", "partition-leader", "one-way"):
            if recover(old, marks) and not broken:
                note(f"cluster healthy again {now() - t_healed:.1f} s after the heal: leader {cluster.leader()}")
        for k in range(INSTANCES):
            if not broken and not wait_for(lambda: server_health(k), 60):
                fail(f"setup: resv-server instance {k} not healthy 60 s after the fault")
        cycle += 1
        time.sleep(1)
    if not group_end:
        # Checked with the faults after it: its own figures now, the invariants at the end.
        mine = ops[own_ops:]
        counts = collections.Counter(op["outcome"] for op in mine)
        outages = [checks.outage([a for a in attempts if a[1] >= t0 and a[0] <= t1 + 60], t0) for t0, t1 in own_windows]
        print(f"{fault}: {http_requests[0] - own_http} requests ({len(mine)} operations) in {now() - began:.1f} s, "
              f"{cycle} fault(s); acknowledged {counts['acknowledged']}, refused {counts['refused']}, indeterminate "
              f"{counts['indeterminate']} (resolved with the check after the last fault); outage "
              + ", ".join("none" if o is None else ("no success after it" if o[1] is None else f"{o[1]:.2f} s")
                          for o in outages), flush=True)
        continue
    stop_writing.set()
    for t in writers:
        t.join(60)
    if any(t.is_alive() for t in writers):
        fail("setup: a writer thread never finished")
    note("load stopped")
    if broken:
        # Its leader lacks the later timeline's commits and has no synchronous standby: reads are
        # refused (503). What it lacks is read from its PostgreSQL itself (psql); nothing else is checked.
        note(f"not checked: the cluster was left as it was ({checks.SPLIT}: {', '.join(broken)} ahead)")
        leader = cluster.leader()
        acked = {rid.lower() for op in ops if op["kind"] in BOOKINGS and op["outcome"] == "acknowledged"
                 for rid in op["ids"]}
        table = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(cluster.node(leader)["pg"]), "-U", "postgres",
                                "-d", "postgres", "-Atc", "SELECT id FROM reservations"],
                               capture_output=True, text=True, timeout=20) if leader else None
        if table is not None and table.returncode == 0:
            lacking = acked - {line.strip().lower() for line in table.stdout.split()}
            if lacking:
                fail(f"{checks.LOST}: {len(lacking)} of {len(acked)} not in the reservations table of the leader "
                     f"{leader}: {', '.join(sorted(lacking)[:5])}")
        break

    # Everything in: watchers caught up (quiet for 2 s, then drained), readers paused.
    pause_reading.set()
    deadline = now() + 30
    while now() < deadline and now() - max(w.last_arrival for w in watchers) < 1:
        time.sleep(0.2)
    with lock:
        phase_ops = ops[ops_before:]
        all_ops = list(ops)
        phase_reads = list(reads)
        reads.clear()

    # The final read: each user's reservations, and whole feed from two instances.
    client = Client()

    def read_reservations(u):
        for attempt in range(20):
            status, answer = client.request(attempt % INSTANCES, "GET", "/reservations", tokens[u])
            if status == 200:
                return answer
            time.sleep(0.5)
        raise SystemExit(f"faults: GET /reservations never answered 200 for {users[u]}")

    stored = {}
    for u in range(len(users)):
        for record in read_reservations(u):
            stored[record["id"].lower()] = record
    finals = {}
    final_reads = []
    for u in range(len(users)):
        for k in range(2):
            got = None
            for _ in range(20):
                got = full_read(client, u, cursors[u], k)
                if got is not None:
                    break
                time.sleep(0.5)
            if got is None:
                raise SystemExit(f"faults: the final read of {users[u]}'s feed failed")
            final_reads.append((f"{users[u]}'s final read on instance {k}", now(), got, u))
            finals.setdefault(u, got)
    # Each watcher goes on until it has been sent as many changes as the final read holds.
    wait_for(lambda: all(w.received >= len(finals[w.user]) for w in watchers), 30)

    # Indeterminate changes: the final read (a booking's own id), then POST /settle of the key.
    settled = {}
    unresolved = [op for op in all_ops if op["outcome"] == "indeterminate" and "made" not in op]
    for op in unresolved:
        if op["kind"] in BOOKINGS and all(rid in stored for rid in op["ids"]):
            op["made"] = True
            continue
        status, answer = client.request(0, "POST", "/settle", tokens[op["user"]], {"key": op["key"]}, timeout=15)
        if status == 200 and isinstance(answer, dict):
            op["made"] = bool(answer.get("made"))
        for rid in op["ids"]:
            settled[rid] = op.get("made")

    bookings = [op for op in all_ops if op["kind"] in BOOKINGS]
    acked = {rid for op in bookings if op["outcome"] == "acknowledged" for rid in op["ids"]}
    unknown = {rid for op in bookings if op["outcome"] == "indeterminate" for rid in op["ids"]}
    found = []
    found += checks.lost_bookings(acked, stored)
    found += [f"{checks.LOST}: {rid} settled as made but not read back" for rid, made in settled.items()
              if made and rid not in stored]
    found += checks.untold_bookings(stored, acked, unknown)
    records = [(r["landmarkId"].lower(), r["date"][:10], r["partySize"], r["status"]) for r in stored.values()]
    availability = []
    for landmark, days in ((landmark, days) for p in range(phase + 1) for landmark, days in days_of(p).items()):
        status, rows = client.request(0, "GET", f"/landmarks/{landmark}/availability?from={days[0]}&to={days[-1]}",
                                      tokens[0])
        if status == 200:
            availability += [(landmark, row["date"], row["taken"], row["capacity"]) for row in rows]
        else:
            found.append(f"setup: availability of {landmark} answered {status}")
    found += checks.over_capacity(records, CAPACITIES, availability)
    gaps = twice = 0
    for u in range(len(users)):
        mine = [w for w in watchers if w.user == u]
        for w in mine:
            lines = checks.feed_list(w.name, w.seen, finals[u])
            gaps += sum(line.startswith(checks.GAP) for line in lines)
            twice += sum(line.startswith(checks.TWICE) for line in lines)
            found += lines
        user_reads = [(n, b, r) for n, b, r, x in phase_reads + final_reads if x == u]
        found += checks.pair_orders({w.name: w.seen for w in mine} | {n: r for n, _, r in user_reads[-6:]})
        found += checks.append_only([(n, r) for n, _, r in user_reads], finals[u])
        writes = [(op["answered"], op["written"]) for op in all_ops if op["user"] == u and op["outcome"] == "acknowledged"]
        found += checks.stale_reads(user_reads, writes)
    pause_reading.clear()

    for line in found:
        fail(line)
    bookings_made, bookings_not_made = checks.resolve(unknown, stored, settled)
    outages = [checks.outage([a for a in attempts if a[1] >= t0 and a[0] <= t1 + 60], t0) for t0, t1 in windows]
    counts = collections.Counter(op["outcome"] for op in phase_ops)
    made = sum(1 for op in phase_ops if op["outcome"] == "indeterminate" and op.get("made"))
    over = sum(line.startswith(checks.CAPACITY) for line in found)
    lost = len(set(acked) - set(stored))
    label = fault if len(group) == 1 else f"{', '.join(group)} (one load, one check)"
    report = {"fault": label, "seconds": round(now() - group_began, 1), "cycles": len(windows),
              "requests": http_requests[0] - http_before, "operations": len(phase_ops),
              "acknowledged": counts["acknowledged"], "refused": counts["refused"],
              "indeterminate": counts["indeterminate"], "indeterminateMade": made,
              "indeterminateNotMade": counts["indeterminate"] - made,
              "indeterminateBookingsSoFar": {"made": bookings_made, "notMade": bookings_not_made}, "lost": lost, "overCapacity": over,
              "feedGaps": gaps, "feedDuplicates": twice,
              "outages": [None if o is None else (None if o[1] is None else round(o[1], 2)) for o in outages],
              "outagesNeverBack": sum(1 for o in outages if o is not None and o[1] is None),
              "refusedBy": dict(collections.Counter(f"{op['status']} {op.get('code')}" for op in phase_ops
                                                    if op["outcome"] == "refused")),
              "kinds": dict(collections.Counter(op["kind"] for op in phase_ops if op["outcome"] == "acknowledged")),
              "failures": failures[failures_before:]}
    reports.append(report)
    outage_text = ", ".join("none" if o is None else ("no success after it" if o[1] is None else f"{o[1]:.2f} s")
                            for o in outages)
    print(f"{label}: {report['requests']} requests ({report['operations']} operations) in {report['seconds']} s, "
          f"{len(windows)} fault(s); acknowledged {report['acknowledged']}, refused {report['refused']}, indeterminate "
          f"{report['indeterminate']} (made {made}, not made {report['indeterminate'] - made}; bookings so far: "
          f"{bookings_made} made, {bookings_not_made} not); lost {lost}; "
          f"over capacity {over}; feed gaps {gaps}, duplicates {twice}; outage {outage_text}", flush=True)
    print(f"  acknowledged by kind: {', '.join(f'{k} {n}' for k, n in sorted(report['kinds'].items()))}; "
          f"refused by answer: {', '.join(f'{k} {n}' for k, n in sorted(report['refusedBy'].items())) or 'none'}; "
          f"reads checked {len(phase_reads) + len(final_reads)}; "
          + ("every invariant holds" if not report["failures"] else f"{len(report['failures'])} failure(s)"), flush=True)

stop_watching.set()
if setup.get("json"):
    json.dump(reports, open(setup["json"], "w"), indent=2)
print()
caught = True
if control_failures_from is not None:
    seeded = failures[control_failures_from:]
    del failures[control_failures_from:]
    expected, implied = CONTROL_CATCHES[control][0], CONTROL_CATCHES[control]
    caught = any(line.startswith(expected) for line in seeded)
    others = [line for line in seeded if not line.startswith(implied)]
    print(f"negative control {control}: "
          + (f"'{expected}' FAILED, as it must" if caught else f"NOT CAUGHT: '{expected}' held under its seeded bug"))
    if others:
        caught = False
        print(f"negative control {control}: failures its seeded bug does not explain:")
        for line in others[:20]:
            print("  " + line)
for name in checks.INVARIANTS:
    bad = [line for line in failures if line.startswith(name)]
    print(f"{name}: {'FAILED (' + str(len(bad)) + ')' if bad else 'not checked' if broken else 'holds'}")
if not caught:
    print(f"FAILED: the negative control {control}")
if failures:
    names = sorted({next((n for n in checks.INVARIANTS if line.startswith(n)), line.split(':')[0]) for line in failures})
    print(f"FAILED: {', '.join(names)}")
    for line in failures[:20]:
        print("  " + line)
    sys.exit(1)
if not caught:
    sys.exit(1)
print("PASSED: every invariant holds under every fault"
      + (f", and the negative control {control} failed its invariant" if control else ""))
