#!/usr/bin/env bash
# Whole-command timings of resv on generated stores of 1k, 10k and 100k
# reservations, with `jq -c '.reservations[]'` on the same files in the same run
# as the reference; medians, ratios to jq, startup, and peak memory.
#   Benchmarks/commands.sh [SIZES...]      (default: 1000 10000 100000)
# Release build. Needs hyperfine, jq and GNU time (apt-get install -y hyperfine jq time).
source "$(dirname "$0")/common.sh"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
make_batch "$work/batch.ndjson"
commands=()
for n in "${sizes[@]}"; do
  make_store "$n" "$work/pristine-$n.json"
  cp "$work/pristine-$n.json" "$work/store-$n.json"
  id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['reservations'][0]['id'][:8])" "$work/store-$n.json")
  s="RESV_STORE=$work/store-$n.json"
  reset="cp $work/pristine-$n.json $work/store-$n.json"
  # hyperfine wants a --prepare for every command or for none: "true" where nothing changes.
  commands+=(
    --prepare true "jq -c '.reservations[]' $work/store-$n.json # jq reference, $n"
    --prepare true "$s $bin list --json --all # list --json --all, $n"
    --prepare true "$s $bin list # list (table), $n"
    --prepare "$reset" "$s $bin reserve -l 'Lake Tahoe' -d 2031-01-01T10:00:00Z -n 2 --json # reserve, $n"
    --prepare "$reset" "$s $bin cancel $id # cancel, $n"
    --prepare "$reset" "$s $bin reserve --batch $work/batch.ndjson --format ndjson # batch of 10000, $n")
done
# Startup is timed apart, without a shell in between (-N).
hyperfine -N --warmup 5 --runs 50 --style none --export-json "$work/startup.json" "$bin --version # startup (resv --version)" >/dev/null
hyperfine --warmup 2 --runs 10 --style none --export-json "$work/results.json" "${commands[@]}" >/dev/null
report "$work/startup.json"
python3 - "$work/results.json" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
medians = {r["command"].split("# ", 1)[-1]: statistics.median(r["times"]) for r in results}
for label, median in medians.items():
    what, n = label.rsplit(", ", 1)
    ratio = "" if what.startswith("jq") else f"  {median / medians[f'jq reference, {n}']:5.2f}x jq"
    print(f"{label:36} median {median * 1000:8.1f} ms{ratio}")
PY
for n in "${sizes[@]}"; do
  kb=$( { RESV_STORE="$work/store-$n.json" /usr/bin/time -f %M "$bin" list >/dev/null; } 2>&1 | tail -1)
  echo "peak memory of resv list, $n: $((kb / 1024)) MB"
done
