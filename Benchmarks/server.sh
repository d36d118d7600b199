#!/usr/bin/env bash
# resv-server under load on loopback, measured with wrk (BENCHMARKS.md,
# "resv-server under load"):
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

seed_reservations
count=$(curl -sf -H "Authorization: Bearer $token" "$url/reservations" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
size=$(curl -sf -H "Authorization: Bearer $token" "$url/reservations" | wc -c)
echo "GET /reservations: $count reservations, $size bytes per response; $connections connections, $duration s"
wrk -t2 -c"$connections" -d"${duration}s" --latency -H "Authorization: Bearer $token" "$url/reservations"

echo
echo "POST /reservations (durable: SQLite WAL, synchronous=FULL); $connections connections, $duration s"
before=$(curl -sf -H "Authorization: Bearer $token" "$url/reservations" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
wrk -t2 -c"$connections" -d"${duration}s" --latency -s "$work/post.lua" "$url/reservations"
after=$(curl -sf -H "Authorization: Bearer $token" "$url/reservations" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
echo "stored: $((after - before)) new reservations"
