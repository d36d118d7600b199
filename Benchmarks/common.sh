# Shared by the Benchmarks/*.sh scripts: source it from one of them.
# Gives $work (a temporary directory, removed on exit) and $bin (resv as `make install`
# builds it: release, Swift runtime linked statically, in .build-static; or $RESV_BIN when set),
# make_batch PATH (below) and make_store N PATH: a store of N random reservations (seeded, so the same N gives
# the same file), in the layout resv writes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${RESV_BIN:-}" ]; then
  bin=$RESV_BIN
else
  build=(swift build -c release --product resv --static-swift-stdlib --scratch-path .build-static)
  "${build[@]}" >/dev/null
  bin=$("${build[@]}" --show-bin-path)/resv
fi
export TZ=UTC
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

make_store() {
  python3 - "$1" "$2" <<'PY'
import json, random, sys, uuid
n, path = int(sys.argv[1]), sys.argv[2]
random.seed(n)
landmarks = ["7c6984ff-188e-417e-b476-ec5f30b8d745", "938e63b1-f467-476b-b442-edcb1b3bc450",
             "bf3703bb-31cd-47f6-9f24-25165f85296c", "20f154de-fbcc-4053-839f-4bf1926791e3"]
records = [{"id": str(uuid.UUID(int=random.getrandbits(128), version=4)),
            "landmarkId": random.choice(landmarks),
            "date": "2030-%02d-%02dT%02d:00:00Z" % (random.randint(1, 12), random.randint(1, 28), random.randint(0, 23)),
            "partySize": random.randint(1, 8),
            "status": random.choice(["pending", "confirmed", "cancelled"])} for _ in range(n)]
json.dump({"version": 1, "reservations": records}, open(path, "w"), indent=2)
PY
}

# make_batch PATH: 10,000 reserve --batch lines, one an hour from 2031 over four
# landmarks (by name and id prefix), never over a capacity.
make_batch() {
  python3 - "$1" <<'PY'
import datetime, json, sys
base = datetime.datetime(2031, 1, 1, tzinfo=datetime.timezone.utc)
names = ["Half Dome", "Lake Tahoe", "Golden Gate Bridge", "7c69"]
with open(sys.argv[1], "w") as batch:
    for i in range(10000):
        date = (base + datetime.timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        batch.write(json.dumps({"landmarkId": names[i % 4], "date": date, "partySize": 1 + i % 3}) + "\n")
PY
}

# Prints "label  median …" for each result of a hyperfine --export-json file; the
# label is what follows "# " in the command.
report() {
  python3 - "$1" <<'PY'
import json, statistics, sys
for result in json.load(open(sys.argv[1]))["results"]:
    times = result["times"]
    label = result["command"].split("# ", 1)[-1]
    print(f"{label:46} median {statistics.median(times) * 1000:8.1f} ms"
          f"   (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}, runs {len(times)})")
PY
}
