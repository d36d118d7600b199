#!/usr/bin/env bash
# BENCHMARKS.md's "`list --json --all` against jq": `resv list --json --all` of 100,000
# reservations against `jq -c '.reservations[]'` on the same file: hyperfine medians (time) and
# GNU time (peak memory, median of 5), and the ratios to jq.
#   Benchmarks/list-json.sh [N]        (default 100000)
# Release build (as `make install` builds it). Needs hyperfine, jq and GNU time.
source "$(dirname "$0")/common.sh"
n=${1:-100000}
make_store "$n" "$work/store.json"
echo "store: $n reservations, $(du -h "$work/store.json" | cut -f1)"
jq="jq -c .reservations[] $work/store.json"
resv="env RESV_STORE=$work/store.json $bin list --json --all"
hyperfine -N --warmup 2 --runs "${RUNS:-15}" --style none --export-json "$work/results.json" \
  "$jq" "$resv" >/dev/null
peak() {
  local kbs=()
  for _ in 1 2 3 4 5; do
    /usr/bin/time -o "$work/time.txt" -f %M $1 >/dev/null
    kbs+=("$(tail -1 "$work/time.txt")")
  done
  printf '%s\n' "${kbs[@]}" | sort -n | sed -n 3p
}
python3 - "$work/results.json" "$(peak "$jq")" "$(peak "$resv")" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
jq, resv = (statistics.median(r["times"]) * 1000 for r in results)
jq_kb, resv_kb = int(sys.argv[2]), int(sys.argv[3])
print(f"jq -c '.reservations[]'   median {jq:7.1f} ms   peak {jq_kb / 1024:6.1f} MiB")
print(f"resv list --json --all    median {resv:7.1f} ms   peak {resv_kb / 1024:6.1f} MiB")
print(f"resv / jq                 time {resv / jq:.2f}x   memory {resv_kb / jq_kb:.2f}x")
PY
