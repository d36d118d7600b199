#!/usr/bin/env bash
# Times one `resv reserve` on JSON stores of 1,000, 10,000 and 100,000
# reservations, and a 10,000-line `reserve --batch` on a 10,000 store.
# Release build; every run starts from the same file (hyperfine --prepare).
#   Benchmarks/reserve.sh [SIZES...]      (default: 1000 10000 100000)
# Needs hyperfine (apt-get install -y hyperfine) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build -c release --product resv >/dev/null
bin=$(swift build -c release --product resv --show-bin-path)/resv
export TZ=UTC

python3 - "$work" "${sizes[@]}" <<'PY'
import datetime, json, random, sys, uuid
work, sizes = sys.argv[1], [int(n) for n in sys.argv[2:]] + [10000]
random.seed(1)
landmarks = ["7c6984ff-188e-417e-b476-ec5f30b8d745", "938e63b1-f467-476b-b442-edcb1b3bc450",
             "bf3703bb-31cd-47f6-9f24-25165f85296c", "20f154de-fbcc-4053-839f-4bf1926791e3"]
for n in set(sizes):
    records = [{"id": str(uuid.UUID(int=random.getrandbits(128), version=4)),
                "landmarkId": random.choice(landmarks),
                "date": "2030-%02d-%02dT%02d:00:00Z" % (random.randint(1, 12), random.randint(1, 28), random.randint(0, 23)),
                "partySize": random.randint(1, 8),
                "status": random.choice(["pending", "confirmed", "cancelled"])} for _ in range(n)]
    json.dump({"version": 1, "reservations": records}, open(f"{work}/store-{n}.json", "w"), indent=2)
base = datetime.datetime(2031, 1, 1, tzinfo=datetime.timezone.utc)
with open(f"{work}/batch.ndjson", "w") as batch:
    names = ["Half Dome", "Lake Tahoe", "Golden Gate Bridge", "7c69"]
    for i in range(10000):
        date = (base + datetime.timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        batch.write(json.dumps({"landmarkId": names[i % 4], "date": date, "partySize": 1 + i % 3}) + "\n")
PY

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
commands=()
for n in "${sizes[@]}"; do
  commands+=(--prepare "cp $work/store-$n.json $work/store.json"
    "RESV_STORE=$work/store.json $bin reserve -l 'Lake Tahoe' -d 2031-01-01T10:00:00Z -n 2 --json # $n")
done
commands+=(--prepare "cp $work/store-10000.json $work/store.json"
  "RESV_STORE=$work/store.json $bin reserve --batch $work/batch.ndjson --format ndjson # batch of 10000 on 10000")
hyperfine --warmup 2 --runs 15 --style none --export-json "$work/results.json" "${commands[@]}" >/dev/null
python3 - "$work/results.json" <<'PY'
import json, statistics, sys
for result in json.load(open(sys.argv[1]))["results"]:
    what = result["command"].split("# ", 1)[-1]
    label = what if what.startswith("batch") else f"reserve on a store of {what}"
    print(f"{label:42} median {statistics.median(result['times']) * 1000:8.1f} ms"
          f"   (min {min(result['times']) * 1000:.1f}, max {max(result['times']) * 1000:.1f}, runs {len(result['times'])})")
PY
