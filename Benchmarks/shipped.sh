#!/usr/bin/env bash
# The shipped binaries' figures (the ones in dist/*.deb, as `make dist` makes them): the
# size of each binary, package and debug file; hyperfine medians of `resv --version` and
# `resv list --json` over a store of 1,000 reservations; and a remote `resv list --json` of
# 1,000 reservations from a resv-server on loopback against a bare curl of the same route.
#   make dist && Benchmarks/shipped.sh          (RUNS=N hyperfine runs, default 200)
#   BIN=.build/debug Benchmarks/shipped.sh      (the same measurements of other binaries)
# Needs hyperfine, curl and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TZ=UTC
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
mib() { python3 -c "import os, sys; print(f'{os.path.getsize(sys.argv[1]) / 1048576:6.1f} MiB')" "$1"; }
if [ -n "${BIN:-}" ]; then
    resv=$(realpath "$BIN/resv")
    server=$(realpath "$BIN/resv-server")
    sizes=("$resv" "$server")
else
    client_deb=$(ls dist/resv_*.deb)
    server_deb=$(ls dist/resv-server_*.deb)
    dpkg-deb -x "$client_deb" "$work/root"
    dpkg-deb -x "$server_deb" "$work/root"
    resv=$work/root/usr/bin/resv
    server=$work/root/usr/bin/resv-server
    sizes=("$resv" "$server" "$client_deb" "$server_deb" dist/resv.debug dist/resv-server.debug)
fi
echo "version: $($resv --version)"
for file in "${sizes[@]}"; do
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
# The same 1,000 reservations on a resv-server (SQLite, loopback), booked as four batches by
# the user whose token lists them; its config file and environment are not read.
mkdir -m 700 "$work/state"
token=$(env -i PATH="$PATH" RESV_SERVER_CONFIG= "$server" token create ada --database "$work/state/resv.sqlite")
env -i PATH="$PATH" RESV_SERVER_CONFIG= "$server" serve --database "$work/state/resv.sqlite" --port 0 \
    --log-level notice 2>"$work/server.log" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 600); do
    port=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/server.log" | head -1 | cut -d: -f3 || true)
    [ -n "$port" ] && break
    kill -0 "$server_pid" || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { echo "resv-server did not say its port" >&2; cat "$work/server.log" >&2; exit 1; }
origin=http://127.0.0.1:$port
python3 - "$work/store.json" "$work/batch" <<'PY'
import json, sys
records = json.load(open(sys.argv[1]))["reservations"]
for part in range(4):
    with open(f"{sys.argv[2]}.{part}", "w") as out:
        for record in records[part * 250:(part + 1) * 250]:
            out.write(json.dumps({key: record[key] for key in ("landmarkId", "date", "partySize", "status")}) + "\n")
PY
for part in 0 1 2 3; do
    env HOME="$work" RESV_SERVER="$origin" RESV_TOKEN="$token" "$resv" reserve --batch "$work/batch.$part" >/dev/null
done
remote=(env HOME="$work" RESV_SERVER="$origin" RESV_TOKEN="$token" "$resv" list --json --all)
[ "$("${remote[@]}" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" = 1000 ] \
    || { echo "the server does not list 1,000 reservations" >&2; exit 1; }
hyperfine -N --warmup 5 --runs "${RUNS:-200}" --style none --export-json "$work/results.json" \
    -n "resv --version" "$resv --version" \
    -n "resv list --json --all (file, 1,000)" "env HOME=$work RESV_STORE=$work/store.json $resv list --json --all" \
    -n "resv list --json --all (server, 1,000)" "${remote[*]}" \
    -n "curl GET /reservations (1,000)" "curl -sS -o /dev/null -H 'Authorization: Bearer $token' $origin/reservations" \
    >/dev/null 2>"$work/hyperfine.log" || { cat "$work/hyperfine.log" >&2; exit 1; }
echo "load while measuring: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results.json" <<'PY'
import json, statistics, sys
for result in json.load(open(sys.argv[1]))["results"]:
    times = result["times"]
    cpu = (result["user"] + result["system"]) * 1000
    print(f"{result['command'][:40]:40s} median {statistics.median(times) * 1000:6.2f} ms"
          f"   CPU mean {cpu:6.2f} ms   (min {min(times) * 1000:.2f}, {len(times)} runs)")
PY
