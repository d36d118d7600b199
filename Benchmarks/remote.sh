#!/usr/bin/env bash
# `resv list --json` against a local resv-server with N reservations (default 1,000),
# next to `curl -s` of the same URL (issue 5's figure), with hyperfine.
#   Benchmarks/remote.sh [N]
# resv as `make install` builds it; resv-server as `make install-server` does.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n=${1:-1000}
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
client=(swift build -c release --product resv --static-swift-stdlib --scratch-path .build-static)
server=(swift build -c release --product resv-server --static-swift-stdlib --scratch-path .build-release)
"${client[@]}" >/dev/null
"${server[@]}" >/dev/null
resv=$("${client[@]}" --show-bin-path)/resv
resv_server=$("${server[@]}" --show-bin-path)/resv-server
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

token=$("$resv_server" token create bench --database "$work/db.sqlite" 2>/dev/null)
"$resv_server" serve --database "$work/db.sqlite" --port 0 --log-level notice 2>"$work/log" &
pid=$!
for _ in $(seq 300); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/log" >&2; exit 1; }
export RESV_SERVER=http://127.0.0.1:$port RESV_TOKEN=$token XDG_CACHE_HOME=$work/cache

# N reservations in one batch (the server books them one create at a time).
python3 - "$n" > "$work/batch" <<'PY'
import datetime, json, sys
base = datetime.datetime(2031, 1, 1, tzinfo=datetime.timezone.utc)
names = ["Lake Tahoe", "Golden Gate Bridge", "Brooklyn Bridge", "Crater Lake"]
for i in range(int(sys.argv[1])):
    date = (base + datetime.timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(json.dumps({"landmarkId": names[i % 4], "date": date, "partySize": 1 + i % 6}))
PY
"$resv" reserve --batch "$work/batch" >/dev/null
echo "resv list --json: $("$resv" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') reservations"
hyperfine -N --warmup 5 --runs 50 \
  -n "curl -s GET /reservations" "curl -s -H 'Authorization: Bearer $token' $RESV_SERVER/reservations" \
  -n "resv list --json" "$resv list --json" \
  -n "resv list --offline --json" "$resv list --offline --json" 2>&1 | sed "s/$token/\$TOKEN/g"
