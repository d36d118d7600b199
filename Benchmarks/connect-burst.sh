#!/usr/bin/env bash
# A burst of TCP connections at resv-server, as many clients opening at once:
# how long each connect() takes (a SYN the kernel drops when the listen queue is
# full is retried a second or more later).
#   Benchmarks/connect-burst.sh [CONNECTIONS] [RUNS]     (defaults 1000 connections, 5 runs)
# Half of the connections send half a request and stop, half send nothing;
# prints, per run, the whole burst's time and the slowest connect, then medians.
# RESV_SERVER_BIN names a resv-server already built (to compare two builds).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
connections=${1:-1000}
runs=${2:-5}
source "$here/serve.sh"
ulimit -n $((connections + 256)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"
python3 - "$port" "$connections" "$runs" <<'PY'
import socket, statistics, sys, time
port, count, runs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
bursts, worsts = [], []
for run in range(runs):
    sockets, worst, start = [], 0.0, time.monotonic()
    for index in range(count):
        s = socket.socket()
        before = time.monotonic()
        s.connect(("127.0.0.1", port))
        worst = max(worst, time.monotonic() - before)
        if index % 2 == 0:
            s.send(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        sockets.append(s)
    burst = time.monotonic() - start
    bursts.append(burst)
    worsts.append(worst)
    print(f"run {run + 1}: {count} connects in {burst:.3f} s, slowest connect {worst * 1000:.1f} ms")
    for s in sockets:
        s.close()
    time.sleep(1)
print(f"median: burst {statistics.median(bursts):.3f} s, slowest connect {statistics.median(worsts) * 1000:.1f} ms")
PY
