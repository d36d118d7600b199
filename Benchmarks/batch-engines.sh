#!/usr/bin/env bash
# BENCHMARKS.md's "One booking engine": one 10,000-line `resv reserve --batch` over the 365
# days of 2031 on a file store, and the same batch through resv-server on PostgreSQL (and on
# SQLite), each run on an empty store or database; hyperfine medians and the ratio to the file.
#
#   Benchmarks/batch-engines.sh                 (starts a throwaway PostgreSQL itself)
#
# RESV_BIN / RESV_SERVER_BIN name builds to measure (default: the debug builds of this
# tree, `swift build`); RUNS (default 10). Needs hyperfine, python3, psql.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${RESV_TEST_POSTGRES_URL:-}" ]; then exec scripts/with-postgres "$0" "$@"; fi
for tool in hyperfine python3 psql; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y hyperfine python3 postgresql-client)" >&2; exit 69; }
done
resv=${RESV_BIN:-$(swift build --product resv --show-bin-path)/resv}
server=${RESV_SERVER_BIN:-$(swift build --product resv-server --show-bin-path)/resv-server}
[ -n "${RESV_BIN:-}" ] || swift build --product resv >/dev/null
[ -n "${RESV_SERVER_BIN:-}" ] || swift build --product resv-server >/dev/null
runs=${RUNS:-10}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
export TZ=UTC XDG_CONFIG_HOME=$work/config XDG_CACHE_HOME=$work/cache XDG_STATE_HOME=$work/state

# 10,000 lines, about 27 a day over 2031, party of 1, four landmarks by id.
python3 - "$work/batch.ndjson" <<'PY'
import datetime, json, sys
base = datetime.datetime(2031, 1, 1, 9, tzinfo=datetime.timezone.utc)
ids = ["7c6984ff-188e-417e-b476-ec5f30b8d745", "938e63b1-f467-476b-b442-edcb1b3bc450",
       "bf3703bb-31cd-47f6-9f24-25165f85296c", "20f154de-fbcc-4053-839f-4bf1926791e3"]
with open(sys.argv[1], "w") as out:
    for i in range(10_000):
        date = base + datetime.timedelta(days=i % 365, minutes=i // 365)
        out.write(json.dumps({"landmarkId": ids[i % 4], "date": date.strftime("%Y-%m-%dT%H:%M:%SZ"),
                              "partySize": 1}) + "\n")
PY

# serve NAME DATABASE: starts resv-server on a free port; sets $url and $token.
serve() {
  token=$("$server" token create "bench-$1" --database "$2" 2>/dev/null)
  "$server" serve --database "$2" --port 0 --log-level notice 2>"$work/$1.log" &
  pids+=($!)
  url=
  for _ in $(seq 600); do
    url=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/$1.log")
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$work/$1.log" >&2; exit 1; }
}

pg=$RESV_TEST_POSTGRES_URL
serve postgres "$pg"
pg_url=$url pg_token=$token
serve sqlite "$work/bench.sqlite"
sqlite_url=$url sqlite_token=$token
empty_pg="psql -q '$pg' -c 'TRUNCATE reservations, history, idempotency_keys, day_counts'"
empty_sqlite="sqlite3 '$work/bench.sqlite' 'DELETE FROM reservations; DELETE FROM history; DELETE FROM idempotency_keys'"
command -v sqlite3 >/dev/null || empty_sqlite="$server --version"

hyperfine --runs "$runs" --warmup 1 --export-json "$work/result.json" \
  --command-name file --prepare "rm -f '$work'/store.json*" \
  "'$resv' --store '$work/store.json' reserve --batch '$work/batch.ndjson' --json >/dev/null" \
  --command-name postgres --prepare "$empty_pg" \
  "RESV_TOKEN=$pg_token '$resv' --server $pg_url reserve --batch '$work/batch.ndjson' --json >/dev/null" \
  --command-name sqlite --prepare "$empty_sqlite" \
  "RESV_TOKEN=$sqlite_token '$resv' --server $sqlite_url reserve --batch '$work/batch.ndjson' --json >/dev/null"

python3 - "$work/result.json" <<'PY'
import json, sys
results = {r["command"]: r["median"] for r in json.load(open(sys.argv[1]))["results"]}
file = results["file"]
for name, median in results.items():
    print(f"{name:9} median {median * 1000:8.1f} ms  {median / file:5.2f}x the file")
PY
