#!/usr/bin/env bash
# `resv list --json` against a local resv-server with N reservations (default 1,000),
# next to `curl -s` of the same URL (issue 5's figure), with hyperfine.
#   Benchmarks/remote.sh [N]
# resv as `make install` builds it; resv-server as `make install-server` does.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
n=${1:-1000}
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
client=(swift build -c release --product resv --static-swift-stdlib --scratch-path .build-static)
"${client[@]}" >/dev/null
resv=$("${client[@]}" --show-bin-path)/resv
source "$here/serve.sh"
export RESV_SERVER=$url RESV_TOKEN=$token XDG_CACHE_HOME=$work/cache

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
