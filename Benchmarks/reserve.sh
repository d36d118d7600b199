#!/usr/bin/env bash
# Times one `resv reserve` on JSON stores of 1,000, 10,000 and 100,000
# reservations, and a 10,000-line `reserve --batch` on a 10,000 store.
# Release build; every run starts from the same file (hyperfine --prepare).
#   Benchmarks/reserve.sh [SIZES...]      (default: 1000 10000 100000)
source "$(dirname "$0")/common.sh"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
for n in "${sizes[@]}" 10000; do [ -f "$work/store-$n.json" ] || make_store "$n" "$work/store-$n.json"; done
make_batch "$work/batch.ndjson"
commands=()
for n in "${sizes[@]}"; do
  commands+=(--prepare "cp $work/store-$n.json $work/store.json"
    "RESV_STORE=$work/store.json $bin reserve -l 'Lake Tahoe' -d 2031-01-01T10:00:00Z -n 2 --json # reserve on a store of $n")
done
commands+=(--prepare "cp $work/store-10000.json $work/store.json"
  "RESV_STORE=$work/store.json $bin reserve --batch $work/batch.ndjson --format ndjson # batch of 10000 on a store of 10000")
hyperfine --warmup 2 --runs 15 --style none --export-json "$work/results.json" "${commands[@]}" >/dev/null
report "$work/results.json"
