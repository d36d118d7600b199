# shellcheck shell=bash
# The throwaway Patroni cluster of scripts/failover and scripts/faults, sourced by both:
# one etcd and three Patroni-managed PostgreSQL nodes on loopback in a temporary folder
# (synchronous_mode and synchronous_mode_strict, ttl 10, loop_wait 2, retry_timeout 4,
# maximum_lag_on_failover 0, pg_hba trust for 127.0.0.1), resv-server instances, tokens.
# `cluster_ttl` (set before cluster_prepare; default 10; at least 20 with Patroni 4, which raises
# a lower one) changes the lease: loop_wait is a fifth of it (1 or 2), retry_timeout twice that, as
# Patroni asks (loop_wait + 2 retry_timeout <= ttl).
#
# The sourcing script sets `prog` (its name, for messages) and `keep` (true: keep the folder),
# then calls, in order:
#   cluster_prepare N_PORTS   checks the tools, makes $work (pids/, bin/), the cleanup trap,
#                             copies resv-server to $server, and reads N_PORTS free loopback
#                             ports into the array `ports`
#   cluster_start_etcd CLIENT PEER
#   cluster_write_node I PG REST ETCD PG_CONNECT REST_CONNECT   node I's patroni.yml: PostgreSQL
#                             on PG and REST on REST; Patroni reaches etcd at ETCD; the others
#                             reach this node at PG_CONNECT and REST_CONNECT (the same ports, or
#                             a proxy's in front of them; `use_proxies`: Patroni talks to etcd
#                             at ETCD only, never at the client URL etcd advertises)
#   cluster_start_nodes       starts the three, waits for a leader, a sync standby and 3 running
#   cluster_tokens URL USER...   one token per user into the array `tokens`
#   cluster_start_server I PORT URL   resv-server instance I (pids/serverI.pid, serverI.log)
# Everything it starts is ended by the trap (resv-server first, then Patroni, the postmasters,
# anything else started from $work, etcd last) and $work removed unless $keep.
# RESV_SERVER_BIN: the resv-server to run (default .build/debug/resv-server, not built here).
# RESV_PATRONI: the patroni to run (default .build-patroni/bin/patroni when scripts/install-patroni
# put it there, else `patroni` on PATH, Debian 12's 3.0.2, which can give the lock back to a
# paused former leader: BENCHMARKS.md, "The long run").

cluster_die() { echo "$prog: $*" >&2; exit 2; }

cluster_prepare() {
  local count=$1
  server_src=${RESV_SERVER_BIN:-.build/debug/resv-server}
  [ -x "$server_src" ] || cluster_die "no resv-server at $server_src (set RESV_SERVER_BIN, or swift build --product resv-server)"
  for tool in etcd python3 curl; do
    command -v "$tool" >/dev/null || cluster_die "needs $tool: apt-get install -y patroni etcd-server etcd-client python3 curl"
  done
  patroni=${RESV_PATRONI:-}
  if [ -z "$patroni" ]; then
    patroni=$(pwd)/.build-patroni/bin/patroni
    [ -x "$patroni" ] || patroni=$(command -v patroni) ||
      cluster_die "needs patroni: scripts/install-patroni (or apt-get install -y patroni)"
  fi
  [ -x "$patroni" ] || cluster_die "RESV_PATRONI=$patroni is not an executable"
  patroni_version=$("$patroni" --version 2>&1 | awk '{print $2}')
  # Patroni 4 runs a lease of at least 20 s (it raises a lower ttl): the nodes are configured with
  # what they will run, so that the waits of the scripts sourcing this one match it.
  if [[ $patroni_version =~ ^([0-9]+)\. ]] && [ "${BASH_REMATCH[1]}" -ge 4 ] && [ "${cluster_ttl:-10}" -lt 20 ]; then
    echo "$prog: patroni $patroni_version takes a lease of at least 20 s: ttl ${cluster_ttl:-10} raised to 20" >&2
    cluster_ttl=20
  fi
  bindir=/usr/lib/postgresql/15/bin
  [ -x "$bindir/postgres" ] || bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$bindir" ] && [ -x "$bindir/postgres" ] || cluster_die "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || cluster_die "running as root, but there is no postgres user to run the cluster as"
    as_pg() { (cd / && exec runuser -u postgres -- "$@"); }
    pg_user=postgres
  else
    as_pg() { "$@"; }
    pg_user=$(id -un)
  fi
  ulimit -n 8192 2>/dev/null || true

  # Under /tmp (short unix socket paths), readable by the postgres user.
  work=$(mktemp -d "/tmp/resv-$prog.XXXXXX")
  chmod 755 "$work"
  mkdir "$work/pids" "$work/bin"
  trap cluster_cleanup EXIT
  trap 'echo "$prog: interrupted" >&2; exit 130' INT
  trap 'echo "$prog: terminated" >&2; exit 143' TERM

  cp "$server_src" "$work/bin/resv-server"
  server=$work/bin/resv-server
  # A configuration file of its own, empty: never the machine's /etc/resv-server/config.json.
  echo '{}' >"$work/server-config.json"
  export RESV_SERVER_CONFIG=$work/server-config.json
  [ "$pg_user" = postgres ] && chown postgres: "$work"

  # Free loopback ports, all distinct.
  read -r -a ports <<<"$(python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$count")"

  echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "server: $server_src ($(stat -c %s "$server_src") bytes, built $(date -u -r "$server_src" +%Y-%m-%dT%H:%M:%SZ))"
  echo "cluster: $("$bindir/postgres" --version), patroni $patroni_version ($patroni), etcd $(etcd --version 2>/dev/null | awk 'NR==1{print $3}')"
}

cluster_cleanup() {
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
    kill -CONT "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
  done
  for i in 1 2 3; do
    if [ -f "$work/node$i/data/postmaster.pid" ]; then
      pid=$(head -1 "$work/node$i/data/postmaster.pid" 2>/dev/null || true)
      [[ $pid =~ ^[0-9]+$ ]] && kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  # Processes a fault stopped (SIGSTOP) and the suite did not get to continue: they would not
  # notice their postmaster's end.
  if [ -f "$work/stopped" ]; then
    for pid in $(cat "$work/stopped"); do kill -CONT "$pid" 2>/dev/null || true; done
  fi
  [ -f "$work/pids/etcd.pid" ] && kill -KILL "$(cat "$work/pids/etcd.pid")" 2>/dev/null || true
  sleep 0.5
  # Anything else still running from this run's folder (a postmaster Patroni started again after a
  # kill): found by the folder's unique name, ended by its id.
  for pid in $(pgrep -f -- "$work/" 2>/dev/null); do
    [ "$pid" != "$$" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  if $keep; then echo "$prog: kept $work" >&2; else rm -rf "$work"; fi
  exit "$status"
}

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

cluster_start_etcd() {
  local client=$1 peer=$2
  mkdir "$work/etcd" && chmod 700 "$work/etcd" && chown "$pg_user" "$work/etcd"
  as_pg etcd --name failover --data-dir "$work/etcd" \
    --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "failover=http://127.0.0.1:$peer" --initial-cluster-state new \
    >"$work/etcd.log" 2>&1 &
  echo "$!" >"$work/pids/etcd-wrapper.pid"
  child_of $! >"$work/pids/etcd.pid"
  disown
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$client/health" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:$client/health" >/dev/null || { cat "$work/etcd.log" >&2; cluster_die "etcd did not start"; }
}

cluster_loop_wait() { local w=$((${cluster_ttl:-10} / 5)); echo $((w < 1 ? 1 : w > 2 ? 2 : w)); }

cluster_write_node() {
  local i=$1 pg=$2 rest=$3 etcd=$4 pg_connect=$5 rest_connect=$6
  local node=$work/node$i
  mkdir -p "$node"
  cat >"$node/patroni.yml" <<YAML
scope: resv-failover
name: node$i
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$rest
  connect_address: 127.0.0.1:$rest_connect
etcd3:
  hosts: 127.0.0.1:$etcd
  use_proxies: true
bootstrap:
  dcs:
    ttl: ${cluster_ttl:-10}
    loop_wait: $(cluster_loop_wait)
    retry_timeout: $((2 * $(cluster_loop_wait)))
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
  listen: 127.0.0.1:$pg
  connect_address: 127.0.0.1:$pg_connect
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
  rest_ports_for_health+=("$rest")
}

cluster_start_node() {
  local i=$1
  as_pg "$patroni" "$work/node$i/patroni.yml" >>"$work/node$i/patroni.log" 2>&1 &
  echo "$!" >"$work/pids/patroni$i-wrapper.pid"
  child_of $! >"$work/pids/patroni$i.pid"
  disown
}

# Waits for a leader, a sync standby and three running members (Patroni's REST GET /cluster).
cluster_healthy() {
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

cluster_start_nodes() {
  local started members="" i
  started=$(date +%s%3N)
  cluster_start_node 1
  sleep 1 # node 1 bootstraps the cluster; the others wait for its leader, then take a base backup
  cluster_start_node 2
  cluster_start_node 3
  for _ in $(seq 240); do
    members=$(cluster_healthy "${rest_ports_for_health[@]}") && break
    members=""
    sleep 0.5
  done
  if [ -z "$members" ]; then
    for i in 1 2 3; do echo "--- node$i" >&2; tail -20 "$work/node$i/patroni.log" >&2; done
    cluster_die "no leader with a sync standby after 120 s"
  fi
  echo "cluster ready in $(awk -v ms=$(($(date +%s%3N) - started)) 'BEGIN { printf "%.1f", ms / 1000 }') s: $members"
}

cluster_tokens() {
  local url=$1 user
  shift
  tokens=()
  for user in "$@"; do
    tokens+=("$("$server" token create "$user" --database "$url" 2>"$work/token.err")") ||
      { cat "$work/token.err" >&2; cluster_die "token create $user failed"; }
  done
}

cluster_start_server() {
  local i=$1 port=$2 url=$3
  "$server" serve --database "$url" --port "$port" --log-level "$log_level" >>"$work/server$i.log" 2>&1 &
  echo "$!" >"$work/pids/server$i.pid"
  disown
  for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
    kill -0 "$(cat "$work/pids/server$i.pid")" 2>/dev/null || break
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:$port/health" >/dev/null ||
    { cat "$work/server$i.log" >&2; cluster_die "resv-server instance $i did not start"; }
}
