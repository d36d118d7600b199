#!/usr/bin/env bash
# resv-server's operations figures (BENCHMARKS.md, "resv-server operations"), on SQLite, with
# wrk on loopback:
#   1. GET /reservations (a user with 100) and POST /reservations (a new durable booking
#      each), requests/s and p50/p99, at 16 and 128 connections;
#   2. 1,000 connections (500 silent, 500 stopped half-way through a request head) held
#      open, then 20 GET /health one after another: their median and slowest time, and how
#      many of the 1,000 the server has closed after --request-timeout and --idle-timeout.
#   Benchmarks/operations.sh [SECONDS]      (default 10 s per wrk run)
# RESV_SERVER_BIN=path uses a resv-server already built (else it builds as serve.sh does);
# RESV_SERVE_ARGS="--token-recheck 0" measures a token checked in the database on every
# request instead of trusted for 2 s; RESV_BENCH_SKIP_SLOW=1 skips part 2.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
duration=${1:-10}
command -v wrk >/dev/null || { echo "needs wrk: apt-get install -y wrk" >&2; exit 1; }
ulimit -n 8192 2>/dev/null || true
source "$here/serve.sh"

seed_reservations
# One line per run: requests/s, p50, p99, non-2xx answers.
summary() {
  awk '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /Non-2xx/ {bad=$NF}
       END {printf "%10s req/s  p50 %8s  p99 %8s  non-2xx %s\n", rps, p50, p99, (bad == "" ? 0 : bad)}'
}
# Every GET before any POST: the POSTs add thousands of reservations to the list.
for connections in 16 128; do
  printf 'GET  /reservations (100)  %3d connections: ' "$connections"
  wrk -t2 -c"$connections" -d"${duration}s" --latency -H "Authorization: Bearer $token" "$url/reservations" | summary
done
for connections in 16 128; do
  printf 'POST /reservations        %3d connections: ' "$connections"
  wrk -t2 -c"$connections" -d"${duration}s" --latency -s "$work/post.lua" "$url/reservations" | summary
done

# The slow connections, against this same server (request timeout 10 s, idle 60 s by default).
[ -n "${RESV_BENCH_SKIP_SLOW:-}" ] && exit 0
python3 - "$port" <<'PY'
import socket, statistics, sys, time, urllib.request
port = int(sys.argv[1])
held = []
for i in range(1000):
    s = socket.create_connection(("127.0.0.1", port))
    if i % 2 == 0:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    held.append(s)
times = []
for _ in range(20):
    start = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=30) as answer:
        answer.read()
    times.append(time.monotonic() - start)
print(f"GET /health beside 1,000 held connections: median {statistics.median(times)*1000:.1f} ms, "
      f"slowest {max(times)*1000:.1f} ms of 20")
def closed(s):
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)
for wait, label in ((11, "after the 10 s request timeout"), (50, "after the 60 s idle timeout")):
    time.sleep(wait)
    half = sum(closed(s) for s in held[0::2])
    silent = sum(closed(s) for s in held[1::2])
    print(f"{label}: {half} of 500 half-sent and {silent} of 500 silent connections closed")
PY
