#!/usr/bin/env bash
# Times resv's read commands and one reserve on a JSON store of N reservations
# (default 10,000), release build, hyperfine medians.
#   Benchmarks/store.sh [N]
source "$(dirname "$0")/common.sh"
n=${1:-10000}
make_store "$n" "$work/pristine.json"
cp "$work/pristine.json" "$work/store.json"
export RESV_STORE="$work/store.json"
echo "store: $n reservations, $(du -h "$work/store.json" | cut -f1)"
hyperfine --warmup 2 --runs 20 --style none --export-json "$work/results.json" \
  "$bin landmarks --json # landmarks --json" \
  "$bin fetch # fetch" \
  "$bin list --json # list --json" \
  "$bin list # list" \
  --prepare "cp $work/pristine.json $work/store.json" \
  "$bin reserve -l 'Lake Tahoe' -d 2031-01-01T10:00:00Z -n 2 --json # reserve" >/dev/null
report "$work/results.json"
