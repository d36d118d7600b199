#!/usr/bin/env bash
# Issue 58's figures for the shipped binaries (the ones in dist/*.deb, as `make dist`
# makes them): the size of each binary, package and debug file, and hyperfine medians of
# `resv --version` and `resv list --json` over a store of 1,000 reservations.
#   make dist && Benchmarks/shipped.sh          (RUNS=N hyperfine runs, default 200)
# Needs hyperfine and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TZ=UTC
client=$(ls dist/resv_*.deb)
server=$(ls dist/resv-server_*.deb)
dpkg-deb -x "$client" "$work/root"
dpkg-deb -x "$server" "$work/root"
resv=$work/root/usr/bin/resv
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "version: $($resv --version)"
mib() { python3 -c "import os, sys; print(f'{os.path.getsize(sys.argv[1]) / 1048576:6.1f} MiB')" "$1"; }
for file in "$resv" "$work/root/usr/bin/resv-server" "$client" "$server" dist/resv.debug dist/resv-server.debug; do
    printf '%-48s %s\n' "$(basename "$file")" "$(mib "$file")"
done
# A store of 1,000 reservations in the layout resv writes (seeded: the same file each run).
python3 - "$work/store.json" <<'PY'
import json, random, sys, uuid
random.seed(1000)
landmarks = ["7c6984ff-188e-417e-b476-ec5f30b8d745", "938e63b1-f467-476b-b442-edcb1b3bc450",
             "bf3703bb-31cd-47f6-9f24-25165f85296c", "20f154de-fbcc-4053-839f-4bf1926791e3"]
records = [{"id": str(uuid.UUID(int=random.getrandbits(128), version=4)),
            "landmarkId": random.choice(landmarks),
            "date": "2030-%02d-%02dT%02d:00:00Z" % (random.randint(1, 12), random.randint(1, 28), random.randint(0, 23)),
            "partySize": random.randint(1, 8),
            "status": random.choice(["pending", "confirmed"])} for _ in range(1000)]
json.dump({"version": 1, "reservations": records}, open(sys.argv[1], "w"), indent=2)
PY
hyperfine -N --warmup 5 --runs "${RUNS:-200}" --style none --export-json "$work/results.json" \
    "$resv --version" "env HOME=$work RESV_STORE=$work/store.json $resv list --json --all" >/dev/null
python3 - "$work/results.json" <<'PY'
import json, statistics, sys
for result in json.load(open(sys.argv[1]))["results"]:
    times = result["times"]
    print(f"{result['command'].split('/')[-1][:40]:40s} median {statistics.median(times) * 1000:6.2f} ms"
          f"   (min {min(times) * 1000:.2f}, {len(times)} runs)")
PY
