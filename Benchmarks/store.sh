#!/usr/bin/env bash
# Times resv on a JSON store of N reservations (default 10,000), release build.
#   Benchmarks/store.sh [N]
# Needs hyperfine (apt-get install -y hyperfine) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build -c release --product resv >/dev/null
bin=$(swift build -c release --product resv --show-bin-path)/resv

python3 - "$n" "$work/store.json" <<'PY'
import json, random, sys, uuid
n, path = int(sys.argv[1]), sys.argv[2]
random.seed(1)
landmarks = ["7c6984ff-188e-417e-b476-ec5f30b8d745", "938e63b1-f467-476b-b442-edcb1b3bc450",
             "bf3703bb-31cd-47f6-9f24-25165f85296c", "20f154de-fbcc-4053-839f-4bf1926791e3"]
records = [{"id": str(uuid.UUID(int=random.getrandbits(128), version=4)),
            "landmarkId": random.choice(landmarks),
            "date": "2030-%02d-%02dT%02d:00:00Z" % (random.randint(1, 12), random.randint(1, 28), random.randint(0, 23)),
            "partySize": random.randint(1, 8),
            "status": random.choice(["pending", "confirmed", "cancelled"])} for _ in range(n)]
json.dump({"version": 1, "reservations": records}, open(path, "w"), indent=2)
PY
cp "$work/store.json" "$work/pristine.json"

export RESV_STORE="$work/store.json" TZ=UTC
echo "store: $n reservations, $(du -h "$work/store.json" | cut -f1); machine: $(nproc) cores, $(uname -m)"
hyperfine --warmup 2 --runs 20 --style none --export-json "$work/results.json" \
  "$bin landmarks --json" \
  "$bin fetch" \
  "$bin list --json" \
  "$bin list" \
  --prepare "cp $work/pristine.json $work/store.json" \
  "$bin reserve -l 'Lake Tahoe' -d 2031-01-01T10:00:00Z -n 2 --json"
python3 - "$work/results.json" <<'PY'
import json, statistics, sys
for result in json.load(open(sys.argv[1]))["results"]:
    command = result["command"].split("/resv ", 1)[-1]
    print(f"resv {command:60} median {statistics.median(result['times']) * 1000:7.1f} ms")
PY
