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
hyperfine --warmup 2 --runs 15 --style none --export-json "$work/results.json" "${commands[@]}" >/dev/null
: >"$work/memory.txt"
for n in "${sizes[@]}"; do
  kb=$( { RESV_STORE="$work/store-$n.json" /usr/bin/time -f %M "$bin" list >/dev/null; } 2>&1 | tail -1)
  echo "$n $kb" >>"$work/memory.txt"
done
python3 - "$work/startup.json" "$work/results.json" "$work/memory.txt" <<'PY'
import json, statistics, sys
startup = statistics.median(json.load(open(sys.argv[1]))["results"][0]["times"]) * 1000
results = json.load(open(sys.argv[2]))["results"]
ms = {r["command"].split("# ", 1)[-1]: statistics.median(r["times"]) * 1000 for r in results}
memory = {int(n): int(kb) / 1024 for n, kb in (line.split() for line in open(sys.argv[3]))}
print(f"{'startup (resv --version)':36} median {startup:8.1f} ms")
for label, median in ms.items():
    what, n = label.rsplit(", ", 1)
    ratio = "" if what.startswith("jq") else f"  {median / ms[f'jq reference, {n}']:5.2f}x jq"
    print(f"{label:36} median {median:8.1f} ms{ratio}")
for n, mb in memory.items():
    print(f"{'peak memory of list, ' + str(n):36} {mb:8.0f} MB")
# The targets of BENCHMARKS.md ("After the speed-up", "Targets"), for the sizes that were run.
checks = [("startup <= 10 ms", startup <= 10)]
if "jq reference, 10000" in ms:
    ratio = ms["list --json --all, 10000"] / ms["jq reference, 10000"]
    checks.append((f"list --json --all on 10k <= 0.5x jq ({ratio:.2f}x)", ratio <= 0.5))
    checks.append((f"reserve on 10k <= 100 ms ({ms['reserve, 10000']:.0f} ms)", ms["reserve, 10000"] <= 100))
if "jq reference, 100000" in ms and "jq reference, 10000" in ms:
    growth = ms["list --json --all, 100000"] / ms["list --json --all, 10000"]
    checks.append((f"list --json --all growth 10k -> 100k <= 12x ({growth:.1f}x)", growth <= 12))
for label, median in ms.items():
    if label.startswith("batch of 10000"):
        checks.append((f"{label} <= 2 s ({median:.0f} ms)", median <= 2000))
if 100000 in memory:
    checks.append((f"peak memory of list on 100k <= 150 MB ({memory[100000]:.0f} MB)", memory[100000] <= 150))
print()
for label, met in checks:
    print(f"{'met   ' if met else 'MISSED'} {label}")
PY
