#!/usr/bin/env bash
# What capacity costs the file backend: one `resv reserve` at a landmark with a
# capacity (Half Dome) next to one without (Lake Tahoe), on the same store of N
# reservations, all at Half Dome over 2030-2039 (so its day index covers them all), and
# `resv availability` over the year 2030 of that store. Release build; every reserve
# starts from the same file (hyperfine --prepare).
#   Benchmarks/capacity.sh [N]      (default: 10000)
source "$(dirname "$0")/common.sh"
n=${1:-10000}
python3 - "$n" "$work/store-$n.json" <<'PY'
import json, random, sys, uuid
n, path = int(sys.argv[1]), sys.argv[2]
random.seed(n)
records = [{"id": str(uuid.UUID(int=random.getrandbits(128), version=4)),
            "landmarkId": "937fea60-bb7b-4ee8-85da-c79962987917",
            "date": "%d-%02d-%02dT%02d:00:00Z" % (random.randint(2030, 2039), random.randint(1, 12),
                                                   random.randint(1, 28), random.randint(0, 23)),
            "partySize": random.randint(1, 3),
            "status": random.choice(["pending", "confirmed", "cancelled"])} for _ in range(n)]
json.dump({"version": 1, "reservations": records}, open(path, "w"), indent=2)
PY
store="$work/store-$n.json"
hyperfine --warmup 2 --runs 30 --style none --export-json "$work/results.json" \
  --prepare "cp $store $work/store.json" \
  "RESV_STORE=$work/store.json $bin reserve -l 'Half Dome' -d 2030-06-15T10:00:00-07:00 -n 2 --json # reserve, capacity 300 ($n stored)" \
  --prepare "cp $store $work/store.json" \
  "RESV_STORE=$work/store.json $bin reserve -l 'Lake Tahoe' -d 2030-06-15T10:00:00-07:00 -n 2 --json # reserve, no capacity ($n stored)" \
  --prepare "true" \
  "RESV_STORE=$store $bin availability 'Half Dome' --from 2030-01-01 --to 2030-12-31 --json # availability, 365 days ($n stored)" \
  --prepare "true" \
  "RESV_STORE=$store $bin list --json --all # list --json --all ($n stored), for scale" >/dev/null
report "$work/results.json"
