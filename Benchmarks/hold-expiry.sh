#!/usr/bin/env bash
# BENCHMARKS.md's "A hold's end recorded by the server itself": how long after a hold's
# `expiresAt` a server itself records its end (and, in the same transaction, promotes the
# reservation waiting for its place), with no request to prompt it. HOLDS holds of one (default
# 300; 3 to 7 s, spread over the seconds, so that all are made and waited for before the first
# ends) fill a day of a landmark of that capacity, as many wait for it; a poller reads the
# database every 20 ms (SQLite directly, PostgreSQL with psql) and notes when each hold is
# first stored `expired` and its waiting one `confirmed`. Reported per engine: the delay
# from `expiresAt` to the stored end, median, p99 and max (docs/contracts.md wants at most 2 s), and
# that each hold ended once and each waiting one was promoted once.
# One server on SQLite; three instances on one PostgreSQL database (the holds made through
# the first, each instance sweeping every second).
#
#   Benchmarks/hold-expiry.sh                 (starts a throwaway PostgreSQL itself)
#
# RESV_SERVER_BIN names a build to measure (default: the debug build of this tree). Needs
# python3, psql.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${RESV_TEST_POSTGRES_URL:-}" ]; then exec scripts/with-postgres "$0" "$@"; fi
for tool in python3 psql curl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y python3 postgresql-client curl)" >&2; exit 69; }
done
server=${RESV_SERVER_BIN:-$(swift build --product resv-server --show-bin-path)/resv-server}
[ -n "${RESV_SERVER_BIN:-}" ] || swift build --product resv-server >/dev/null
holds=${HOLDS:-300}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

# serve NAME DATABASE CATALOG: starts resv-server on a free port; sets $url.
serve() {
  "$server" serve --database "$2" --landmarks "$3" --port 0 --log-level notice \
    --max-holds-per-user 100000 2>"$work/$1.log" &
  pids+=($!)
  url=
  for _ in $(seq 600); do
    url=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/$1.log")
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$work/$1.log" >&2; exit 1; }
}

# measure ENGINE DATABASE INSTANCES
measure() {
  local engine=$1 database=$2 instances=$3
  local tower
  tower=$(python3 -c 'import uuid; print(uuid.uuid4())')
  printf '[{"id": "%s", "name": "Bench Tower", "location": "Nowhere", "category": "mountains", "capacity": %d, "timeZone": "UTC"}]' \
    "$tower" "$holds" >"$work/$engine.json"
  local token
  token=$("$server" token create "bench-$engine-$RANDOM" --database "$database" 2>/dev/null)
  local first=
  for i in $(seq "$instances"); do
    serve "$engine-$i" "$database" "$work/$engine.json"
    [ -n "$first" ] || first=$url
  done
  python3 - "$engine" "$database" "$first" "$token" "$tower" "$holds" <<'PY'
import datetime, json, sqlite3, statistics, subprocess, sys, time, urllib.request
engine, database, url, token, tower, holds = sys.argv[1:6] + [int(sys.argv[6])]

def post(lines):
    request = urllib.request.Request(
        url + "/reservations/batch", data=json.dumps({"reservations": lines}).encode(), method="POST",
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))

def line(**extra):
    return dict(landmarkId=tower, date="2030-12-01T10:00:00Z", partySize=1, **extra)

# Holds of 3 to 7 s, a fifth each; then one waiting for each place.
made = post([line(hold=3 + i % 5) for i in range(holds)])
ends = {r["id"]: datetime.datetime.fromisoformat(r["expiresAt"].replace("Z", "+00:00")).timestamp() for r in made}
waiting = {r["id"] for r in post([line(waitlist=True) for _ in range(holds)]) if r["status"] == "waitlisted"}
if len(waiting) < holds: print(f"{engine}: only {len(waiting)} of {holds} waited: a hold ended before the list was made")

def rows():
    query = f"SELECT id, status FROM reservations WHERE landmark_id = '{tower}'"
    if engine == "sqlite":
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
            return db.execute(query).fetchall()
    out = subprocess.run(["psql", database, "-tAF", "|", "-c", query], capture_output=True, text=True, check=True)
    return [tuple(l.split("|")) for l in out.stdout.split()]

ended, promoted = {}, {}
deadline = time.time() + 60
while (len(ended) < holds or len(promoted) < holds) and time.time() < deadline:
    now = time.time()
    for id, status in rows():
        if status == "expired" and id in ends: ended.setdefault(id, now)
        if status == "confirmed" and id in waiting: promoted.setdefault(id, now)
    time.sleep(0.02)
delays = sorted(ended[i] - ends[i] for i in ended)
q = lambda p: delays[min(len(delays) - 1, int(p * len(delays)))]
print(f"{engine:9} {len(ended)}/{holds} ended, {len(promoted)}/{holds} promoted; delay from expiresAt to the stored end: "
      f"median {statistics.median(delays):.2f} s, p99 {q(0.99):.2f} s, max {delays[-1]:.2f} s")
PY
  if [ "$engine" = postgres ]; then
    psql -tA "$database" -c "SELECT h.change, COUNT(*), COUNT(DISTINCT h.reservation_id) FROM history h JOIN reservations r
      ON r.id = h.reservation_id WHERE r.landmark_id = '$tower' AND h.change IN ('expired', 'promoted') GROUP BY h.change" |
      sed 's/^/          entries (change|count|distinct): /'
  else
    sqlite3 "$database" "SELECT h.change, COUNT(*), COUNT(DISTINCT h.reservation_id) FROM history h JOIN reservations r
      ON r.id = h.reservation_id WHERE r.landmark_id = '$tower' AND h.change IN ('expired', 'promoted') GROUP BY h.change" |
      sed 's/^/          entries (change|count|distinct): /'
  fi
}

measure sqlite "$work/bench.sqlite" 1
measure postgres "$RESV_TEST_POSTGRES_URL" 3
