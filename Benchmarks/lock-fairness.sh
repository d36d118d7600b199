#!/usr/bin/env bash
# Lock fairness under contention: PROCESSES processes, each running EACH `resv reserve`
# one after another, all at once on one store of RECORDS reservations, with the default
# 5 s lock timeout. Reports how many commands exited 75 (the lock wait timed out), any
# other failure, the median and max wall time per command, and checks that the store
# kept every booking that was reported. Release build (dynamically linked).
#   Benchmarks/lock-fairness.sh [PROCESSES] [EACH] [RECORDS]    (default: 8 50 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
processes=${1:-8}
each=${2:-50}
records=${3:-2000}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift build -c release --product resv >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --product resv --show-bin-path)/resv
export TZ=UTC RESV_STORE="$work/reservations.json" RESV_CONFIG="$work/config.json"
unset RESV_LOCK_TIMEOUT RESV_SERVER RESV_MAX_STORE_BYTES
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

# The seed: RECORDS bookings at Lake Tahoe (no capacity), one an hour from 2031, in one batch.
for ((i = 0; i < records; i++)); do
  printf '{"landmarkId": "Lake Tahoe", "date": "%s", "partySize": 2}\n' \
    "$(date -u -d "2031-01-01 +$i hours" +%Y-%m-%dT%H:%M:%SZ)"
done >"$work/seed.ndjson"
"$bin" reserve --batch "$work/seed.ndjson" --format ndjson >/dev/null
echo "store: $records reservations, $(stat -c %s "$RESV_STORE") bytes"

# reserves COUNT: COUNT reserves one after another, a line each: exit status, start and
# end ($EPOCHREALTIME: no fork to read the clock).
reserves() {
  for ((i = 0; i < $1; i++)); do
    local start=$EPOCHREALTIME status=0
    "$bin" reserve -l "Lake Tahoe" -d 2032-01-01T10:00:00Z -n 1 >/dev/null 2>>"$work/errors" || status=$?
    echo "$status $start $EPOCHREALTIME"
  done
}

# For scale: the same command with no one else waiting.
reserves 20 >"$work/alone"
for ((p = 1; p <= processes; p++)); do reserves "$each" >"$work/times-$p" & done
started=$EPOCHREALTIME
wait
finished=$EPOCHREALTIME

python3 - "$work" "$processes" "$each" "$records" "$started" "$finished" <<'PY'
import collections, glob, json, statistics, sys
work, processes, each, records = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
wall = float(sys.argv[6]) - float(sys.argv[5])
alone = [(float(end) - float(start)) * 1000 for _, start, end in (line.split() for line in open(f"{work}/alone"))]
records += len(alone)
print(f"one reserve with no one waiting: median {statistics.median(alone):.1f} ms (20 runs)")
runs = [line.split() for path in glob.glob(f"{work}/times-*") for line in open(path)]
statuses = collections.Counter(int(status) for status, _, _ in runs)
times = sorted((float(end) - float(start)) * 1000 for _, start, end in runs)
stored = len(json.load(open(f"{work}/reservations.json"))["reservations"])
print(f"commands: {len(runs)} ({processes} processes x {each}), all done in {wall:.1f} s")
print(f"exit 75 (lock timeout): {statuses[75]}; other failures: {sum(n for s, n in statuses.items() if s not in (0, 75))}"
      f"; exit statuses: {dict(sorted(statuses.items()))}")
print(f"wall time per command: median {statistics.median(times):.1f} ms, "
      f"p90 {times[int(len(times) * 0.9) - 1]:.1f} ms, max {times[-1]:.1f} ms")
kept = stored - records
print(f"stored: {stored} = {records} before + {kept} new; {statuses[0]} reported success"
      + ("" if kept == statuses[0] else "  <-- MISMATCH"))
PY
if [ -s "$work/errors" ]; then
  echo "stderr of the failures (first 5 lines):"
  head -5 "$work/errors"
fi
