#!/usr/bin/env bash
# resv-server when its PostgreSQL goes away (BENCHMARKS.md, "The database going away"): a
# server on a throwaway PostgreSQL serves a booking; then PostgreSQL is stopped (-m immediate)
# and, RUNS times, the time from the stop to the answer of the first GET /reservations and of
# `resv list` is printed, with the status, the code and resv's message and exit code; then
# PostgreSQL is started again and the time until a request is served again.
#   Benchmarks/database-down.sh [RUNS]      (default 3)
# RESV_SERVER_BIN / RESV_BIN name builds (else the debug builds, built if needed). Needs the
# postgresql package (as scripts/with-postgres), curl and jq; run as root or as a user who may
# run PostgreSQL's initdb.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
runs=${1:-3}
if [ -z "${RESV_SERVER_BIN:-}" ] || [ -z "${RESV_BIN:-}" ]; then
  swift build --product resv-server >/dev/null
  swift build --product resv >/dev/null
  bin="$(swift build --show-bin-path)"
  RESV_SERVER_BIN=${RESV_SERVER_BIN:-$bin/resv-server}
  RESV_BIN=${RESV_BIN:-$bin/resv}
fi
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
if [ "$(id -u)" = 0 ]; then as_pg() { (cd / && runuser -u postgres -- "$@"); }; else as_pg() { "$@"; }; fi
work=$(mktemp -d /tmp/resv-dbdown.XXXXXX)
chmod 755 "$work"
data="$work/pg"
pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  as_pg "$bindir/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir "$data" && chown postgres "$data" 2>/dev/null || true
as_pg "$bindir/initdb" -A trust -U postgres -D "$data" >/dev/null
pg_start() {
  as_pg "$bindir/pg_ctl" -D "$data" -w -l "$data/log" \
    -o "-p $pgport -c listen_addresses=127.0.0.1 -k $data" start >/dev/null
}
pg_start
url="postgres://postgres@127.0.0.1:$pgport/postgres?sslmode=disable"
now_ms() { date +%s%3N; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); server: $RESV_SERVER_BIN"
token=$("$RESV_SERVER_BIN" token create down --database "$url" 2>/dev/null)
"$RESV_SERVER_BIN" serve --database "$url" --port 0 --log-level notice 2>"$work/log" &
server=$!
port=""
until [ -n "$port" ]; do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/log")
  sleep 0.05
done
export RESV_SERVER="http://127.0.0.1:$port" RESV_TOKEN=$token RESV_CONFIG=$work/none.json
export RESV_CACHE_DIR=$work/cache
"$RESV_BIN" reserve -l "Golden Gate" -d "2031-06-01 10:00" -n 2 >/dev/null
for run in $(seq "$runs"); do
  as_pg "$bindir/pg_ctl" -D "$data" -m immediate -w stop >/dev/null
  stopped=$(now_ms)
  answer=$(curl -s -o "$work/body" -w '%{http_code}' -H "Authorization: Bearer $token" "$RESV_SERVER/reservations")
  first=$(($(now_ms) - stopped))
  code=$(jq -r '.code // empty' "$work/body" 2>/dev/null || true)
  set +e
  message=$("$RESV_BIN" list 2>&1 >/dev/null)
  status=$?
  set -e
  listed=$(($(now_ms) - stopped))
  pg_start
  started=$(now_ms)
  until [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$RESV_SERVER/reservations")" = 200 ]; do
    sleep 0.1
  done
  back=$(($(now_ms) - started))
  echo "run $run: first answer ${first} ms after the stop: $answer $code; resv list after ${listed} ms: exit $status: $message; served again ${back} ms after the start"
done
