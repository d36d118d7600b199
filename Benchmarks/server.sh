#!/usr/bin/env bash
# resv-server under load on loopback, measured with wrk (issue 4's figures):
#   GET /reservations of a user with 100 reservations, and POST /reservations
#   (each a new, durable booking), on SQLite.
#   Benchmarks/server.sh [SECONDS] [CONNECTIONS]     (defaults 10 s, 64 connections)
# Builds resv-server as `make install-server` does (release, static Swift runtime).
# Prints wrk's report for each: requests/s and the latency distribution (p50..p99);
# wrk reports any answer that is not 2xx ("Non-2xx or 3xx responses").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
duration=${1:-10}
connections=${2:-64}
command -v wrk >/dev/null || { echo "needs wrk: apt-get install -y wrk" >&2; exit 1; }
source "$here/serve.sh"

for day in $(seq 100); do
  date=$(date -u -d "2031-01-01 + $day days" +%Y-%m-%dT10:00:00Z)
  curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"landmarkId\":\"7c6984ff-188e-417e-b476-ec5f30b8d745\",\"date\":\"$date\",\"partySize\":2}" "$url/reservations"
done
count=$(curl -sf -H "Authorization: Bearer $token" "$url/reservations" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
size=$(curl -sf -H "Authorization: Bearer $token" "$url/reservations" | wc -c)
echo "GET /reservations: $count reservations, $size bytes per response; $connections connections, $duration s"
wrk -t2 -c"$connections" -d"${duration}s" --latency -H "Authorization: Bearer $token" "$url/reservations"

cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer $token"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2032-06-01T10:00:00Z","partySize":2}'
LUA
echo
echo "POST /reservations (durable: SQLite WAL, synchronous=FULL); $connections connections, $duration s"
before=$(curl -sf -H "Authorization: Bearer $token" "$url/reservations" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
wrk -t2 -c"$connections" -d"${duration}s" --latency -s "$work/post.lua" "$url/reservations"
after=$(curl -sf -H "Authorization: Bearer $token" "$url/reservations" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
echo "stored: $((after - before)) new reservations"
