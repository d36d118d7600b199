#!/usr/bin/env bash
# resv-server across a PostgreSQL failover (docs/contracts.md,
# "Beyond one machine (a PostgreSQL cluster)"; BENCHMARKS.md, "Failover").
#
# Builds a throwaway cluster on loopback in a temporary folder: one etcd and three
# Patroni-managed PostgreSQL nodes (synchronous_mode and synchronous_mode_strict, ttl 10,
# loop_wait 2, retry_timeout 4, maximum_lag_on_failover 0, pg_hba trust for 127.0.0.1), and
# waits for a leader and a sync standby. Starts two resv-server instances on the libpq
# multi-host URL naming the three nodes (target_session_attrs=read-write) and makes a token
# for each of three users. Then Benchmarks/failover-check.py loads both instances the whole
# time (writer threads per user booking with an Idempotency-Key, retried with the same key on
# the other instance after a 5xx, a timeout or a lost connection, and cancelling; one watcher
# per user long-polling GET /changes, alternating instances) while, RUNS times:
#   (a) the leader's patroni and postgres postmaster are killed with SIGKILL (the outage is
#       the time from the kill to the first write acknowledged after it); the killed node is
#       then wiped and started again, and rejoins as a replica (a fresh base backup);
#   (b) the leader is switched over (Patroni's REST POST /switchover) to the sync standby;
#   (c) one resv-server instance is killed with SIGKILL and started again on its port.
# Afterwards everything is read back and checked: no acknowledged booking lost, no booking
# the clients were not told about, every acknowledged cancel cancelled, no landmark-day over
# its capacity (availability and the records agree), every watcher saw each of its user's
# changes exactly once, no 5xx but 503 `databaseUnavailable` (or `serverBusy`), every
# request answered within 30 s (a long poll: its wait + 15 s), none still under way in an
# instance after the load (resv_http_active_requests) and none missing an end in the request
# log, no client or watcher thread died, no server log line at error level, and the kept day
# counts non-empty once bookings were made (Benchmarks/failover_checks.py). It prints a summary (requests,
# acknowledged, lost, the fullest day against its capacity, changes seen/missed/duplicated,
# the feed's delay, every status seen, the outages) and exits 0 only when every check holds
# (1 when one fails, 2 on a setup error).
#
#   Benchmarks/failover.sh                 # one run (the short mode: about 1.5 minutes)
#   Benchmarks/failover.sh --runs 3        # p50 and max of the kill outage over 3 runs
#   Benchmarks/failover.sh --runs 3 --load 8 --writers 6 --json out.json
#
# --load SECONDS: load between two faults (default 4); --writers N: writer threads per user
# (default 4); --json PATH: the summary as JSON; --keep: keep the temporary folder (logs).
# FAILOVER_LOG_LEVEL: resv-server's --log-level (default info: a line for every request, from
# which the checker finds requests never answered; at notice that check fails as not computable).
# RESV_SERVER_BIN: the resv-server to run (default .build/debug/resv-server, copied to the
# temporary folder first; not built here). Needs patroni, etcd and PostgreSQL 15
# (apt-get install -y patroni etcd-server etcd-client postgresql) and python3 (standard
# library only). As root, etcd, patroni and postgres run as user postgres.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
runs=1 load=4 writers=4 json_out="" keep=false log_level=${FAILOVER_LOG_LEVEL:-info}
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --load) load=$2; shift 2 ;;
    --writers) writers=$2; shift 2 ;;
    --json) json_out=$(realpath -m "$2"); shift 2 ;;
    --keep) keep=true; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "failover: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "failover: $*" >&2; exit 2; }
server_src=${RESV_SERVER_BIN:-.build/debug/resv-server}
[ -x "$server_src" ] || die "no resv-server at $server_src (set RESV_SERVER_BIN, or swift build --product resv-server)"
for tool in patroni etcd python3 curl; do
  command -v "$tool" >/dev/null || die "needs $tool: apt-get install -y patroni etcd-server etcd-client python3 curl"
done
bindir=/usr/lib/postgresql/15/bin
[ -x "$bindir/postgres" ] || bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bindir" ] && [ -x "$bindir/postgres" ] || die "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin"
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || die "running as root, but there is no postgres user to run the cluster as"
  as_pg() { (cd / && exec runuser -u postgres -- "$@"); }
  pg_user=postgres
else
  as_pg() { "$@"; }
  pg_user=$(id -un)
fi
ulimit -n 8192 2>/dev/null || true

# Under /tmp (short unix socket paths), readable by the postgres user.
work=$(mktemp -d /tmp/resv-failover.XXXXXX)
chmod 755 "$work"
mkdir "$work/pids" "$work/bin"
cleanup() {
  local status=$? f pid i
  trap - EXIT INT TERM
  # resv-server first (TERM, then KILL), then every patroni, then the postmasters, then etcd.
  for f in "$work"/pids/server*.pid; do
    [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null || true
  done
  for f in "$work"/pids/*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    case "$f" in */etcd.pid) continue ;; esac
    kill -KILL "$pid" 2>/dev/null || true
  done
  for i in 1 2 3; do
    if [ -f "$work/node$i/data/postmaster.pid" ]; then
      pid=$(head -1 "$work/node$i/data/postmaster.pid" 2>/dev/null || true)
      [[ $pid =~ ^[0-9]+$ ]] && kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  [ -f "$work/pids/etcd.pid" ] && kill -KILL "$(cat "$work/pids/etcd.pid")" 2>/dev/null || true
  sleep 0.5
  # Anything else still running from this run's folder (a postmaster Patroni started again after a
  # kill): found by the folder's unique name, ended by its id.
  for pid in $(pgrep -f -- "$work/" 2>/dev/null); do
    [ "$pid" != "$$" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  if $keep; then echo "failover: kept $work" >&2; else rm -rf "$work"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'echo "failover: interrupted" >&2; exit 130' INT
trap 'echo "failover: terminated" >&2; exit 143' TERM

cp "$server_src" "$work/bin/resv-server"
server=$work/bin/resv-server
[ "$pg_user" = postgres ] && chown postgres: "$work"

# Free loopback ports, all distinct: etcd client and peer, per node PostgreSQL and REST, two servers.
read -r -a ports <<<"$(python3 -c '
import socket
socks = [socket.socket() for _ in range(10)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')"
etcd_client=${ports[0]} etcd_peer=${ports[1]}
pg_ports=("${ports[2]}" "${ports[3]}" "${ports[4]}")
rest_ports=("${ports[5]}" "${ports[6]}" "${ports[7]}")
server_ports=("${ports[8]}" "${ports[9]}")

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server: $server_src ($(stat -c %s "$server_src") bytes, built $(date -u -r "$server_src" +%Y-%m-%dT%H:%M:%SZ))"
echo "cluster: $("$bindir/postgres" --version), patroni $(patroni --version 2>&1 | awk '{print $2}'), etcd $(etcd --version 2>/dev/null | awk 'NR==1{print $3}')"

# The pid of the program a background `as_pg PROGRAM` started: bash's subshells and runuser
# (which forks) stand between $! and it, so follow the first child down past them.
child_of() {
  local pid=$1 child
  for _ in $(seq 100); do
    case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
      bash|runuser) ;;
      *) break ;;
    esac
    child=$(awk '{print $1}' "/proc/$pid/task/$pid/children" 2>/dev/null)
    if [ -n "$child" ]; then pid=$child; else sleep 0.05; fi
  done
  echo "$pid"
}

# --- etcd ----------------------------------------------------------------------------------
mkdir "$work/etcd" && chmod 700 "$work/etcd" && chown "$pg_user" "$work/etcd"
as_pg etcd --name failover --data-dir "$work/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_client" --advertise-client-urls "http://127.0.0.1:$etcd_client" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-cluster "failover=http://127.0.0.1:$etcd_peer" --initial-cluster-state new \
  >"$work/etcd.log" 2>&1 &
echo "$!" >"$work/pids/etcd-wrapper.pid"
child_of $! >"$work/pids/etcd.pid"
disown
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$etcd_client/health" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$etcd_client/health" >/dev/null || { cat "$work/etcd.log" >&2; die "etcd did not start"; }

# --- three Patroni nodes -----------------------------------------------------------------
for i in 1 2 3; do
  node=$work/node$i
  mkdir -p "$node"
  cat >"$node/patroni.yml" <<YAML
scope: resv-failover
name: node$i
log:
  level: INFO
restapi:
  listen: 127.0.0.1:${rest_ports[$((i - 1))]}
  connect_address: 127.0.0.1:${rest_ports[$((i - 1))]}
etcd3:
  hosts: 127.0.0.1:$etcd_client
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 4
    maximum_lag_on_failover: 0
    synchronous_mode: true
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: false
      parameters:
        max_connections: 200
        wal_level: replica
        hot_standby: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 128MB
  initdb:
    - encoding: UTF8
    - no-locale
postgresql:
  listen: 127.0.0.1:${pg_ports[$((i - 1))]}
  connect_address: 127.0.0.1:${pg_ports[$((i - 1))]}
  data_dir: $node/data
  bin_dir: $bindir
  pgpass: $node/pgpass
  basebackup:
    - checkpoint: fast
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
  parameters:
    unix_socket_directories: $node
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
YAML
  chown -R "$pg_user" "$node"
done
start_node() {
  local i=$1
  as_pg patroni "$work/node$i/patroni.yml" >>"$work/node$i/patroni.log" 2>&1 &
  echo "$!" >"$work/pids/patroni$i-wrapper.pid"
  child_of $! >"$work/pids/patroni$i.pid"
  disown
}
started=$(date +%s%3N)
start_node 1
sleep 1 # node 1 bootstraps the cluster; the others wait for its leader, then take a base backup
start_node 2
start_node 3

# Waits for a leader, a sync standby and three running members (Patroni's REST GET /cluster).
healthy() {
  python3 - "$@" <<'PY'
import json, sys, urllib.request
for port in sys.argv[1:]:
    try:
        cluster = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/cluster", timeout=2))
    except Exception:
        continue
    members = cluster.get("members", [])
    roles = [m.get("role") for m in members]
    running = [m for m in members if m.get("state") in ("running", "streaming")]
    if "leader" in roles and "sync_standby" in roles and len(running) == 3:
        print(" ".join(f"{m['name']}={m['role']}" for m in members))
        sys.exit(0)
sys.exit(1)
PY
}
members=""
for _ in $(seq 240); do
  members=$(healthy "${rest_ports[@]}") && break
  members=""
  sleep 0.5
done
if [ -z "$members" ]; then
  for i in 1 2 3; do echo "--- node$i" >&2; tail -20 "$work/node$i/patroni.log" >&2; done
  die "no leader with a sync standby after 120 s"
fi
echo "cluster ready in $(awk -v ms=$(($(date +%s%3N) - started)) 'BEGIN { printf "%.1f", ms / 1000 }') s: $members"
hosts="127.0.0.1:${pg_ports[0]},127.0.0.1:${pg_ports[1]},127.0.0.1:${pg_ports[2]}"
url="postgres://postgres@$hosts/postgres?target_session_attrs=read-write&sslmode=disable"

# --- two resv-server instances and three users ---------------------------------------------
tokens=()
for user in alice bob carol; do
  tokens+=("$("$server" token create "$user" --database "$url" 2>"$work/token.err")") ||
    { cat "$work/token.err" >&2; die "token create $user failed"; }
done
start_server() {
  local i=$1 port=${server_ports[$1]}
  "$server" serve --database "$url" --port "$port" --log-level "$log_level" >>"$work/server$i.log" 2>&1 &
  echo "$!" >"$work/pids/server$i.pid"
  disown
}
for i in 0 1; do
  start_server "$i"
  for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:${server_ports[$i]}/health" >/dev/null 2>&1 && break
    kill -0 "$(cat "$work/pids/server$i.pid")" 2>/dev/null || break
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:${server_ports[$i]}/health" >/dev/null ||
    { cat "$work/server$i.log" >&2; die "resv-server instance $i did not start"; }
done
echo "resv-server instances on ports ${server_ports[*]}, --database postgres://postgres@$hosts/postgres?target_session_attrs=read-write"

# The checker gets everything it needs to start, kill and restart as one JSON document.
python3 - "$work/setup.json" <<PY
import json, sys
json.dump({
    "work": "$work", "runs": $runs, "load": $load, "writers": $writers, "json": "$json_out",
    "pgUser": "$pg_user", "logLevel": "$log_level", "url": "$url", "server": "$server",
    "serverPorts": [${server_ports[0]}, ${server_ports[1]}],
    "nodes": [{"name": f"node{i}", "rest": r, "pg": p, "config": f"$work/node{i}/patroni.yml",
               "data": f"$work/node{i}/data", "log": f"$work/node{i}/patroni.log"}
              for i, r, p in zip((1, 2, 3), (${rest_ports[0]}, ${rest_ports[1]}, ${rest_ports[2]}),
                                 (${pg_ports[0]}, ${pg_ports[1]}, ${pg_ports[2]}))],
    "users": ["alice", "bob", "carol"], "tokens": "${tokens[*]}".split(),
}, open(sys.argv[1], "w"))
PY
set +e
python3 "$here/failover-check.py" "$work/setup.json"
status=$?
set -e
exit "$status"
