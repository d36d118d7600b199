#!/usr/bin/env bash
# resv-server stopping with long polls waiting (BENCHMARKS.md, same title): N watchers'
# GET /changes?wait=60 held by one SQLite server, then SIGTERM; prints, per run, the time from the
# signal to the process's exit and how many polls were answered 200 with no changes and their
# own cursor.
#   Benchmarks/stop.sh [POLLS] [RUNS]      (default 100 polls, 5 runs)
# RESV_SERVER_BIN=path uses a resv-server already built (else the debug build, built if needed).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
polls=${1:-100}
runs=${2:-5}
if [ -z "${RESV_SERVER_BIN:-}" ]; then
  swift build --product resv-server >/dev/null
  RESV_SERVER_BIN="$(swift build --show-bin-path)/resv-server"
fi
ulimit -n 8192 2>/dev/null || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/server.sqlite"
token=$("$RESV_SERVER_BIN" token create stop --database "$db" 2>/dev/null)
now_ms() { date +%s%3N; }
for run in $(seq "$runs"); do
  "$RESV_SERVER_BIN" serve --database "$db" --port 0 --log-level notice 2>"$work/log" &
  pid=$!
  port=""
  for _ in $(seq 600); do
    port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/log")
    [ -n "$port" ] && break
    sleep 0.05
  done
  url="http://127.0.0.1:$port"
  cursor=$(curl -fs -H "Authorization: Bearer $token" "$url/changes" | jq -r .cursor)
  rm -f "$work"/answer.*
  for i in $(seq "$polls"); do
    curl -s -o "$work/answer.$i" -H "Authorization: Bearer $token" "$url/changes?after=$cursor&wait=60" &
  done
  # Until every poll is under way in the server (its gauge counts this GET /metrics too).
  until [ "$(curl -fs "$url/metrics" | awk '/^resv_http_active_requests\{method="GET"\}/ {print int($2)}')" \
    -ge $((polls + 1)) ]; do sleep 0.05; done
  start=$(now_ms)
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  took=$(($(now_ms) - start))
  wait  # the curls
  answered=$(grep -l "{\"changes\":\[\],\"cursor\":\"$cursor\"}" "$work"/answer.* | wc -l)
  printf 'run %d: exit %d after %5d ms; %d of %d polls answered with their cursor\n' \
    "$run" "$status" "$took" "$answered" "$polls"
done
