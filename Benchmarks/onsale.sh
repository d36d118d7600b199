#!/usr/bin/env bash
# The on-sale day (docs/contracts.md, "On-sale (one hot landmark-day)"): everyone books the
# same landmark-day at once, on PostgreSQL.
#
# One throwaway PostgreSQL on loopback (initdb in a temporary folder, a free port, as user
# postgres when run as root; durable: fsync and synchronous_commit on, only max_connections
# raised to 200), three resv-server instances on it (`serve --port 0 --landmarks`, a catalog of
# three test landmarks), 64 users (`token create`). The load: one wrk per instance, all three at
# once, each -t1 -c16 (48 connections), each request a new booking (POST /reservations,
# {"landmarkId","date","partySize":1}, no Idempotency-Key) as the next of the 64 users in turn.
# RUNS times, each on a day of its own in 2031 (so every run starts from an empty day), for
# SECONDS each:
#   hot       the load on ONE landmark-day of a landmark with a capacity (1,000,000: never full
#             during the run), so every booking counts the day under its lock;
#   uncapped  the same load on a landmark without capacity, the same day;
#   pgbench   pgbench on the same PostgreSQL, its own database (the server's tables untouched),
#             -c 48 -j 2 -n -T SECONDS, each transaction booking one seat on a hot counter row:
#             UPDATE hot SET taken = taken + 1 WHERE id = 1 AND taken + 1 <= cap;
#             INSERT INTO seats …; COMMIT (the floor: one row lock taken per booking, one commit).
# Where the CPU went in each (the three instances, the PostgreSQL cluster's processes, the rest:
# wrk or pgbench), per booking, and for the two loads on the server how many transactions stored
# the bookings (their rows' xmin: group commit's groups).
# A rate is bookings stored a second, counted in the database before and after, over SECONDS
# (bookings under way when the time is up, at most 48, count too, as in pgbench); wrk's answers
# are counted by status as well (Lua's response(): 201, 409, 503 with and without Retry-After,
# 500, others; socket errors) with wrk's latency p50 and p99. A 2-second warm-up (another day)
# comes first and is not counted.
# Then the exactness phase: a landmark-day with capacity 500 under the same load for 5 s (full
# long before the end, so every booking's answer reaches wrk), then checked: exactly 500 people
# booked (SUM(party_size) of its pending and confirmed rows), as many 201 answers as rows stored
# (no 201 without a place, none lost), every other answer 409 (code noCapacity) or 503 with
# Retry-After (never 500, nothing else, no socket error), at least one 409 (it ran out), and
# every instance's GET /landmarks/{id}/availability saying 500 taken, 0 left.
#
#   Benchmarks/onsale.sh [--runs N] [--seconds S]      (defaults 3 runs, 10 s)
#
# Prints the machine (cores, CPU), PostgreSQL (version, fsync, synchronous_commit, file system of
# its data), each run's three rates (and wrk's statuses and latency p50/p99), the medians and
# the ratios hot/uncapped (goal >= 0.8) and hot/pgbench (goal >= 1.5), each run's and those of
# the medians, then the exactness phase's counts and a line `exactness: PASS` or
# `exactness: FAIL (why)`. Exit 0 on PASS, 1 on FAIL (the ratios' goals do not change it), 2 on
# a setup error.
# RESV_SERVER_BIN names a resv-server already built (skips the build); else it is built as
# `make install-server` does (release, static Swift runtime, --scratch-path .build-release;
# about 12 minutes on two cores the first time). Needs wrk, pgbench, psql and the PostgreSQL
# server (apt-get install -y wrk postgresql), curl and python3.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
runs=3 seconds=10
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=${2:-}; shift 2 || true ;;
    --seconds) seconds=${2:-}; shift 2 || true ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "onsale: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "onsale: $*" >&2; exit 2; }
if ! [[ $runs =~ ^[1-9][0-9]*$ ]] || [ "$runs" -gt 28 ]; then die "--runs takes 1 to 28"; fi
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "--seconds takes a whole number of seconds above 0"
for tool in wrk pgbench psql curl python3; do
  command -v "$tool" >/dev/null || die "needs $tool: apt-get install -y wrk postgresql-client curl python3"
done
bindir=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
[ -x "$bindir/postgres" ] || die "no PostgreSQL server in /usr/lib/postgresql/*/bin: apt-get install -y postgresql"
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || die "running as root, but there is no postgres user to run PostgreSQL as"
  as_pg() { (cd / && runuser -u postgres -- "$@"); }
  pg_owner=postgres
else
  as_pg() { "$@"; }
  pg_owner=$(id -un)
fi

if [ -n "${RESV_SERVER_BIN:-}" ]; then
  server_bin=$RESV_SERVER_BIN
else
  echo "onsale: building resv-server (release, .build-release)" >&2
  server_build=(swift build -c release --product resv-server --static-swift-stdlib --scratch-path .build-release)
  "${server_build[@]}" >/dev/null
  server_bin=$("${server_build[@]}" --show-bin-path)/resv-server
fi
[ -x "$server_bin" ] || die "no resv-server at $server_bin"

# Under /tmp (a short unix socket path), readable by the postgres user.
work=$(mktemp -d /tmp/resv-onsale.XXXXXX)
chmod 755 "$work"
data=$work/pg
server_pids=() load_pids=()
# shellcheck disable=SC2317 # invoked through the EXIT trap
cleanup() {
  local status=$? pid
  trap - EXIT INT TERM
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${server_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${load_pids[@]}" "${server_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -f "$data/postmaster.pid" ]; then
    as_pg "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
    if [ -f "$data/postmaster.pid" ]; then
      pid=$(head -1 "$data/postmaster.pid" 2>/dev/null || true)
      if [[ $pid =~ ^[0-9]+$ ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'echo "onsale: interrupted" >&2; exit 130' INT
trap 'echo "onsale: terminated" >&2; exit 143' TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- PostgreSQL -------------------------------------------------------------------------
mkdir "$data"
chown "$pg_owner" "$data"
chmod 700 "$data"
as_pg "$bindir/initdb" -D "$data" -A trust -U postgres -E UTF8 --no-locale -N >"$work/initdb.log" 2>&1 ||
  { cat "$work/initdb.log" >&2; die "initdb failed"; }
started=false
for _ in 1 2 3 4 5; do # the free port may be taken before PostgreSQL binds it
  pg_port=$(free_port)
  if as_pg "$bindir/pg_ctl" -D "$data" -w -t 60 -l "$data/log" \
    -o "-p $pg_port -c listen_addresses=127.0.0.1 -k $data -c max_connections=200" start >/dev/null 2>&1; then
    started=true
    break
  fi
  grep -q 'could not bind\|Address already in use' "$data/log" 2>/dev/null || break
done
$started || { cat "$data/log" >&2; die "PostgreSQL did not start"; }
sql() { # sql DATABASE STATEMENTS: one line a row, columns separated by a space
  psql -X -q -At -F ' ' -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres -d "$1" -c "$2"
}
sql postgres "CREATE DATABASE resv" >/dev/null
sql postgres "CREATE DATABASE onsale_pgbench" >/dev/null
url="postgres://postgres@127.0.0.1:$pg_port/resv?sslmode=disable"

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average $(cut -d' ' -f1-3 /proc/loadavg)"
settings=$(sql postgres "SELECT string_agg(name || ' ' || current_setting(name), ', ' ORDER BY name) FROM pg_settings
  WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'max_connections', 'shared_buffers')")
echo "PostgreSQL $(sql postgres 'SHOW server_version') on 127.0.0.1:$pg_port, data on $(df -T "$data" | awk 'NR == 2 { print $2 }'): $settings"
echo "server: $server_bin ($(stat -c %s "$server_bin") bytes, built $(date -u -r "$server_bin" +%Y-%m-%dT%H:%M:%SZ))"

# --- the catalog, the users, three instances ------------------------------------------------
hot=0a5e0000-0000-4000-8000-000000000001      # capacity 1,000,000
uncapped=0a5e0000-0000-4000-8000-000000000002 # no capacity
small=0a5e0000-0000-4000-8000-000000000003    # capacity 500: the exactness phase
small_capacity=500
cat >"$work/landmarks.json" <<JSON
[
  {"id": "$hot", "name": "On-sale Arena", "location": "Loopback", "description": "The hot day.",
   "category": "mountains", "isFeatured": true, "capacity": 1000000},
  {"id": "$uncapped", "name": "Open Field", "location": "Loopback", "description": "No capacity.",
   "category": "lakes", "isFeatured": false},
  {"id": "$small", "name": "Small Hall", "location": "Loopback", "description": "Sells out.",
   "category": "bridges", "isFeatured": false, "capacity": $small_capacity}
]
JSON
tokens=()
for n in $(seq -w 64); do
  tokens+=("$("$server_bin" token create "fan$n" --database "$url" 2>"$work/token.err")") ||
    { cat "$work/token.err" >&2; die "token create fan$n failed"; }
done
ports=()
for i in 0 1 2; do
  : >"$work/server$i.log" # before the background job opens it, so sed finds it
  "$server_bin" serve --database "$url" --port 0 --log-level notice --landmarks "$work/landmarks.json" \
    2>"$work/server$i.log" &
  server_pids+=($!)
  port=
  for _ in $(seq 300); do
    port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/server$i.log")
    [ -n "$port" ] && break
    kill -0 "${server_pids[$i]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$work/server$i.log" >&2; die "resv-server instance $i did not start"; }
  ports+=("$port")
done
echo "resv-server: 3 instances on 127.0.0.1:${ports[0]}, :${ports[1]}, :${ports[2]}; 64 users; wrk -t1 -c16 per instance"

# wrk's script: POST /reservations, a new booking a request, as each user in turn (the requests
# are made once, in init). Arguments after `--`: landmark id, date, where in the users to start.
# Answers are counted by status per thread; done() adds them up in one line "onsale: …".
lua() { # lua FILE: the script for the users of ${tokens[@]}
{
  echo 'local tokens = {'
  printf '  "%s",\n' "${tokens[@]}"
  echo '}'
  cat <<'LUA'
local requests, turn = {}, 0
c201, c409, c409odd, c503, c503bare, c500, cother, othercode = 0, 0, 0, 0, 0, 0, 0, 0
local threads = {}

function setup(thread)
  thread:set("slot", #threads)
  table.insert(threads, thread)
end

function init(args)
  local body = string.format('{"landmarkId":"%s","date":"%s","partySize":1}', args[1], args[2])
  for i, token in ipairs(tokens) do
    requests[i] = wrk.format("POST", nil,
      { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, body)
  end
  turn = tonumber(args[3] or 0) + slot * 7
end

function request()
  turn = turn + 1
  return requests[turn % #requests + 1]
end

function response(status, headers, body)
  if status == 201 then
    c201 = c201 + 1
  elseif status == 409 then
    c409 = c409 + 1
    if not string.find(body, '"noCapacity"', 1, true) then c409odd = c409odd + 1 end
  elseif status == 503 then
    c503 = c503 + 1
    local retry = false
    for name, _ in pairs(headers) do
      if string.lower(name) == "retry-after" then retry = true end
    end
    if not retry then c503bare = c503bare + 1 end
  elseif status == 500 then
    c500 = c500 + 1
  else
    cother = cother + 1
    othercode = status
  end
end

function done(summary, latency, requests)
  local t = { c201 = 0, c409 = 0, c409odd = 0, c503 = 0, c503bare = 0, c500 = 0, cother = 0 }
  local code = 0
  for _, thread in ipairs(threads) do
    for name, _ in pairs(t) do t[name] = t[name] + thread:get(name) end
    if thread:get("othercode") ~= 0 then code = thread:get("othercode") end
  end
  local e = summary.errors
  io.write(string.format(
    "onsale: 201=%d 409=%d 409odd=%d 503=%d 503bare=%d 500=%d other=%d othercode=%d errors=%d p50=%d p99=%d\n",
    t.c201, t.c409, t.c409odd, t.c503, t.c503bare, t.c500, t.cother, code, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
LUA
} >"$1"
}
script=$work/book.lua
lua "$script"

# load LANDMARK DATE SECONDS NAME: the three wrk at once, their output in $work/wrk-NAME-{0,1,2}.
load() {
  local i status=0
  load_pids=()
  for i in 0 1 2; do
    wrk -t1 -c16 -d"${3}s" --timeout 10s -s "$script" "http://127.0.0.1:${ports[$i]}/reservations" \
      -- "$1" "$2" "$((i * 21))" >"$work/wrk-$4-$i" 2>&1 &
    load_pids+=($!)
  done
  for i in 0 1 2; do wait "${load_pids[$i]}" || status=$?; done
  load_pids=()
  [ "$status" = 0 ] || { cat "$work/wrk-$4-0" >&2; die "wrk failed (exit $status)"; }
}
# answers NAME...: the three wrk outputs of each NAME added up: "201 409 409odd 503 503bare 500
# other othercode errors p50 p99" (409odd: a 409 not noCapacity; latencies in µs, the largest).
answers() {
  local name files=()
  for name in "$@"; do files+=("$work/wrk-$name-0" "$work/wrk-$name-1" "$work/wrk-$name-2"); done
  awk -v want="${#files[@]}" '/^onsale: / {
      for (i = 2; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] ~ /^(p50|p99|othercode)$/) { if (kv[2] + 0 > v[kv[1]] + 0) v[kv[1]] = kv[2] } else v[kv[1]] += kv[2]
      }
      files++
    }
    END {
      if (files != want) { print "missing"; exit 1 }
      printf "%d %d %d %d %d %d %d %d %d %d %d\n", v["201"], v["409"], v["409odd"], v["503"], v["503bare"], v["500"], v["other"], v["othercode"], v["errors"], v["p50"], v["p99"]
    }' "${files[@]}"
}
# booked LANDMARK DAY: "rows people" that take places on that day (pending or confirmed).
booked() {
  local from query
  from=$(date -u -d "$2" +%s)
  query="SELECT count(*), COALESCE(sum(party_size), 0) FROM reservations
    WHERE lower(landmark_id) = lower('$1') AND status IN ('pending', 'confirmed')
      AND starts_at >= $from AND starts_at < $from + 86400"
  if [ -n "$sqlite" ]; then sqlite3 -separator ' ' "$sqlite" "$query"; else sql resv "$query"; fi
}
sqlite= # the SQLite file of the SQLite phase, once it runs
# settled LANDMARK DAY: booked, once two readings 0.3 s apart agree (bookings still under way
# when wrk stopped are finished or refused).
settled() {
  local now before=""
  for _ in $(seq 30); do
    now=$(booked "$1" "$2")
    [ "$now" = "$before" ] && break
    before=$now
    sleep 0.3
  done
  echo "$now"
}
seats() { sql onsale_pgbench "SELECT count(*) FROM seats"; }
# commits LANDMARK DAY: how many transactions wrote that day's bookings (their rows' xmin).
commits() {
  [ -z "$sqlite" ] || { echo "-"; return; }
  local from
  from=$(date -u -d "$2" +%s)
  sql resv "SELECT count(DISTINCT xmin::text) FROM reservations
    WHERE lower(landmark_id) = lower('$1') AND starts_at >= $from AND starts_at < $from + 86400"
}
# cpu: "servers postgres all" CPU seconds used so far (utime + stime): the three instances, the
# cluster's processes (the postmaster and its children: backends live as long as the pools'
# connections), and the machine (/proc/stat, every process, the load generators too).
cpu() {
  local postmaster pids
  postmaster=$(head -1 "$data/postmaster.pid")
  pids="$postmaster $(pgrep -P "$postmaster" | tr '\n' ' ')"
  python3 - "${server_pids[*]}" "$pids" <<'PY'
import os, sys
tick = os.sysconf("SC_CLK_TCK")
def used(pids):
    total = 0
    for pid in pids.split():
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / tick
cpu = open("/proc/stat").readline().split()[1:]
busy = (sum(map(int, cpu)) - int(cpu[3]) - int(cpu[4])) / tick
print(f"{used(sys.argv[1]):.2f} {used(sys.argv[2]):.2f} {busy:.2f}")
PY
}
# spent BEFORE AFTER N: where the CPU went between two `cpu` readings, per booking of N.
spent() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
before, after, n = list(map(float, sys.argv[1].split())), list(map(float, sys.argv[2].split())), int(sys.argv[3])
servers, postgres, busy = (b - a for a, b in zip(before, after))
rest = busy - servers - postgres
each = lambda s: f"{s * 1000 / n:.2f}" if n else "-"
print(f"CPU {busy:.1f} s: servers {servers:.1f} s, PostgreSQL {postgres:.1f} s, the rest (wrk, pgbench) {rest:.1f} s;"
      f" per booking {each(servers)} + {each(postgres)} + {each(rest)} ms")
PY
}
rate() { awk -v n="$1" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }'; }
describe() { # describe ANSWERS: wrk's statuses in words
  local a201 a409 a409odd a503 a503bare a500 aother acode aerrors ap50 ap99 text
  read -r a201 a409 a409odd a503 a503bare a500 aother acode aerrors ap50 ap99 <<<"$1"
  text="wrk: $a201 x 201"
  [ "$a409" = 0 ] || text+=", $a409 x 409"
  [ "$a409odd" = 0 ] || text+=" ($a409odd of them not noCapacity)"
  [ "$a503" = 0 ] || text+=", $a503 x 503 ($a503bare without Retry-After)"
  [ "$a500" = 0 ] || text+=", $a500 x 500"
  [ "$aother" = 0 ] || text+=", $aother other (e.g. $acode)"
  [ "$aerrors" = 0 ] || text+=", $aerrors socket errors"
  echo "$text; p50 $(awk -v u="$ap50" 'BEGIN { printf "%.1f", u / 1000 }') ms, p99 $(awk -v u="$ap99" 'BEGIN { printf "%.1f", u / 1000 }') ms"
}

# pgbench's own tables, in their own database.
sql onsale_pgbench "
  CREATE TABLE hot (id integer PRIMARY KEY, cap bigint NOT NULL, taken bigint NOT NULL);
  INSERT INTO hot VALUES (1, 1000000000, 0);
  CREATE TABLE seats (id bigserial PRIMARY KEY, hot_id integer NOT NULL, user_id integer NOT NULL,
    party_size integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now());"
cat >"$work/seat.sql" <<'SQL'
\set user random(1, 64)
BEGIN;
UPDATE hot SET taken = taken + 1 WHERE id = 1 AND taken + 1 <= cap;
INSERT INTO seats (hot_id, user_id, party_size) VALUES (1, :user, 1);
COMMIT;
SQL

# book LANDMARK DATE NAME: the load for SECONDS on that landmark-day; sets n (bookings stored),
# cpu_used (where the CPU went, per booking) and groups (the transactions that stored them).
book() {
  local day before start
  day=${2%%T*}
  before=$(booked "$1" "$day" | cut -d' ' -f1)
  start=$(cpu)
  load "$1" "$2" "$seconds" "$3"
  cpu_used=$(cpu)
  n=$(($(settled "$1" "$day" | cut -d' ' -f1) - before))
  cpu_used=$(spent "$start" "$cpu_used" "$n")
  groups=$(commits "$1" "$day")
}

# --- the runs -----------------------------------------------------------------------------
load "$uncapped" 2031-05-01T10:00:00Z 2 warmup
echo "warm-up: $(describe "$(answers warmup)")"
echo "$runs run(s) of $seconds s each: bookings stored a second (counted in the database)"
: >"$work/rates"
for run in $(seq "$runs"); do
  day=$(date -u -d "2031-06-01 + $((run - 1)) days" +%Y-%m-%d)
  date=${day}T10:00:00Z
  book "$hot" "$date" "hot$run"
  hot_n=$n hot_cpu=$cpu_used hot_groups=$groups
  book "$uncapped" "$date" "uncapped$run"
  uncapped_n=$n uncapped_cpu=$cpu_used uncapped_groups=$groups
  before=$(seats)
  cpu_before_pgbench=$(cpu)
  pgbench -h 127.0.0.1 -p "$pg_port" -U postgres -n -c 48 -j 2 -T "$seconds" -f "$work/seat.sql" onsale_pgbench \
    >"$work/pgbench$run" 2>&1 || { cat "$work/pgbench$run" >&2; die "pgbench failed"; }
  cpu_pgbench=$(cpu)
  pgbench_n=$(($(seats) - before))
  tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$work/pgbench$run")
  echo "$(rate "$hot_n") $(rate "$uncapped_n") $(rate "$pgbench_n")" >>"$work/rates"
  echo "run $run ($day):"
  echo "  hot       $(rate "$hot_n")/s ($hot_n stored; $(describe "$(answers "hot$run")"))"
  echo "            $hot_cpu; $hot_groups commits ($(awk -v n="$hot_n" -v g="$hot_groups" 'BEGIN { printf "%.1f", g ? n / g : 0 }') bookings each)"
  echo "  uncapped  $(rate "$uncapped_n")/s ($uncapped_n stored; $(describe "$(answers "uncapped$run")"))"
  echo "            $uncapped_cpu; $uncapped_groups commits"
  echo "  pgbench   $(rate "$pgbench_n")/s ($pgbench_n stored; pgbench's tps ${tps:-?})"
  echo "            $(spent "$cpu_before_pgbench" "$cpu_pgbench" "$pgbench_n")"
  echo "  hot/uncapped $(awk -v a="$hot_n" -v b="$uncapped_n" 'BEGIN { printf "%.2f", b ? a / b : 0 }'), hot/pgbench $(awk -v a="$hot_n" -v b="$pgbench_n" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
done
python3 - "$work/rates" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
hot, uncapped, pgbench = (statistics.median(column) for column in zip(*rows))
label = "median of %d runs" % len(rows) if len(rows) > 1 else "one run"
print(f"{label}: hot {hot:.0f}/s, uncapped {uncapped:.0f}/s, pgbench {pgbench:.0f}/s")
for name, ratio, goal in (("hot/uncapped", hot / uncapped if uncapped else 0, 0.8),
                          ("hot/pgbench", hot / pgbench if pgbench else 0, 1.5)):
    print(f"  {name} {ratio:.2f} (goal >= {goal}: {'met' if ratio >= goal else 'missed'})")
PY

# --- exactness ----------------------------------------------------------------------------
day=2031-12-01
date=${day}T10:00:00Z
load "$small" "$date" 5 small
read -r rows people <<<"$(settled "$small" "$day")"
read -r a201 a409 a409odd a503 a503bare a500 aother acode aerrors _ <<<"$(answers small)"
echo "exactness: capacity $small_capacity on $day, 5 s of load: $rows rows, $people people stored; $(describe "$(answers small)")"
why=()
[ "$people" = "$small_capacity" ] || why+=("$people people booked, not $small_capacity")
[ "$a201" = "$rows" ] || why+=("$a201 answers 201 but $rows rows stored")
[ "$a500" = 0 ] || why+=("$a500 answers 500")
[ "$a409odd" = 0 ] || why+=("$a409odd answers 409 whose code is not noCapacity")
[ "$a503bare" = 0 ] || why+=("$a503bare answers 503 without Retry-After")
[ "$aother" = 0 ] || why+=("$aother answers neither 201, 409 nor 503 (e.g. $acode)")
[ "$aerrors" = 0 ] || why+=("$aerrors socket errors (answers not seen)")
[ "$a409" -gt 0 ] || why+=("no 409: the day never ran out")
for i in 0 1 2; do
  seen=$(curl -sf -H "Authorization: Bearer ${tokens[0]}" \
    "http://127.0.0.1:${ports[$i]}/landmarks/$small/availability?from=$day&to=$day" |
    python3 -c 'import json, sys; d = json.load(sys.stdin)[0]; print(d["taken"], d["left"])' 2>/dev/null) || seen="no answer"
  [ "$seen" = "$small_capacity 0" ] || why+=("instance $i's availability says taken/left $seen")
done
# --- SQLite: its one writer on a hot day ----------------------------------------------------
# One instance on an SQLite file (one server a file), the same 48 connections (three wrk on its
# one port), the hot day and the uncapped day for SECONDS each: SQLite's writer commits what it
# finds waiting together whatever the day, so the two should match.
sqlite=$work/onsale.sqlite
tokens=()
for n in $(seq -w 64); do
  tokens+=("$("$server_bin" token create "fan$n" --database "$sqlite" 2>"$work/token.err")") ||
    { cat "$work/token.err" >&2; die "token create fan$n (SQLite) failed"; }
done
script=$work/book-sqlite.lua
lua "$script"
: >"$work/sqlite.log"
"$server_bin" serve --database "$sqlite" --port 0 --log-level notice --landmarks "$work/landmarks.json" \
  2>"$work/sqlite.log" &
server_pids+=($!)
port=
for _ in $(seq 300); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/sqlite.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/sqlite.log" >&2; die "resv-server on SQLite did not start"; }
ports=("$port" "$port" "$port")
load "$uncapped" 2031-05-02T10:00:00Z 2 sqlite-warmup
book "$hot" 2031-07-01T10:00:00Z sqlite-hot
sqlite_hot=$n
echo "SQLite, one instance: hot $(rate "$n")/s ($n stored; $(describe "$(answers sqlite-hot)"))"
echo "  $cpu_used"
book "$uncapped" 2031-07-01T10:00:00Z sqlite-uncapped
echo "SQLite, one instance: uncapped $(rate "$n")/s ($n stored; $(describe "$(answers sqlite-uncapped)"))"
echo "  $cpu_used"
echo "  SQLite hot/uncapped $(awk -v a="$sqlite_hot" -v b="$n" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"

if [ "${#why[@]}" = 0 ]; then
  echo "exactness: PASS ($small_capacity of $small_capacity places taken, each with its 201; $a409 x 409, $a503 x 503 with Retry-After; no 500)"
else
  reasons=$(printf '%s; ' "${why[@]}")
  echo "exactness: FAIL (${reasons%; })"
  exit 1
fi
