#!/usr/bin/env bash
# Remote mode's targets (BENCHMARKS.md, "Remote mode"), two builds side by side (old = before,
# new = after), with hyperfine:
#   1. `resv reserve --batch` of 1,000 lines against resv-server vs the same batch on a
#      file store (target: HTTP ≤ 10× file);
#   2. `resv list --json` of 1,000 reservations over HTTP vs one bare `curl` GET of
#      /reservations (target: ≤ 1.5×);
#   3. 20 commands in one `resv repl` session against the server (total wall time);
#   4. `resv list` against a server that accepts and never answers, RESV_REQUEST_TIMEOUT=3
#      (target: ≤ 4 s);
#   5. start-up: `resv --version` and `resv list` on a small file store (new must not be
#      slower), and whether file mode loads libcurl (ldd, LD_DEBUG=files).
#
#   Benchmarks/remote.sh OLD_RESV NEW_RESV OLD_SERVER NEW_SERVER
# or the same four from RESV_OLD, RESV_NEW, RESV_SERVER_OLD, RESV_SERVER_NEW.
# RUNS (default 10) and WARMUP (default 1) for the long benchmarks (1, 3; 4 runs 3 times;
# OLD_BATCH_RUNS, default RUNS, for the old client's batch over HTTP);
# the short ones (2, 5) run 5 warm-ups + 30 runs. hyperfine's JSON goes to
# RESV_BENCH_OUT (default /tmp/resv-remote-bench); the medians are printed at the end.
# PARTS (default "1 2 3 4 5") runs only some of them (2 and 3 seed the servers with one
# untimed batch when 1 is not run).
# Each build talks to its own server (old client, old server; new client, new server),
# each server on a free loopback port with its own temporary SQLite file.
set -euo pipefail
old_resv=${1:-${RESV_OLD:-}}
new_resv=${2:-${RESV_NEW:-}}
old_server=${3:-${RESV_SERVER_OLD:-}}
new_server=${4:-${RESV_SERVER_NEW:-}}
for bin in "$old_resv" "$new_resv" "$old_server" "$new_server"; do
  [ -x "$bin" ] || { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; echo "not an executable: '$bin'" >&2; exit 64; }
done
old_resv=$(realpath "$old_resv") new_resv=$(realpath "$new_resv")
old_server=$(realpath "$old_server") new_server=$(realpath "$new_server")
for tool in hyperfine jq curl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y hyperfine jq curl python3)" >&2; exit 69; }
done
parts=" ${PARTS:-1 2 3 4 5} "
part() { [[ $parts == *" $1 "* ]]; }
runs=${RUNS:-10}
warmup=${WARMUP:-1}
out=${RESV_BENCH_OUT:-/tmp/resv-remote-bench}
mkdir -p "$out"

work=$(mktemp -d /tmp/resv-remote.XXXXXX)
hung_pid=
cleanup() {
  for name in old new; do
    [ -f "$work/$name/pid" ] && "$work/ctl" stop "$name"
  done
  [ -n "$hung_pid" ] && kill "$hung_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Every command runs with its own XDG directories (config, cache, data, state) in $work:
# no config file, no cache from an earlier run.
export XDG_CONFIG_HOME=$work/xdg/config XDG_CACHE_HOME=$work/xdg/cache \
  XDG_DATA_HOME=$work/xdg/data XDG_STATE_HOME=$work/xdg/state
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME"
unset RESV_SERVER RESV_TOKEN RESV_STORE RESV_PROFILE RESV_CONFIG RESV_REQUEST_TIMEOUT RESV_CONNECT_TIMEOUT

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $old_resv, $old_server"
echo "new: $new_resv, $new_server"

# $work/ctl start|stop|reset NAME [TEMPLATE]: the server NAME (old or new) on $work/NAME/db.sqlite.
# start picks a free port the first time and keeps it; reset stops the server, replaces
# the database with $work/NAME/TEMPLATE.sqlite and the client caches, and starts it again.
# hyperfine's --prepare calls reset, so each timed run starts from the same database.
cat > "$work/ctl" <<EOF
#!/usr/bin/env bash
set -euo pipefail
work=$work
EOF
cat >> "$work/ctl" <<'EOF'
name=$2; dir=$work/$name; bin=$(cat "$dir/bin")
stop() {
  local pid; pid=$(cat "$dir/pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
}
start() {
  local port; port=$(cat "$dir/port" 2>/dev/null || echo 0)
  : > "$dir/log"
  setsid "$bin" serve --database "$dir/db.sqlite" --port "$port" --log-level notice \
    </dev/null >/dev/null 2>"$dir/log" &
  echo $! > "$dir/pid"
  for _ in $(seq 600); do
    port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/log")
    [ -n "$port" ] && { echo "$port" > "$dir/port"; return 0; }
    kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
    sleep 0.05
  done
  cat "$dir/log" >&2; exit 1
}
case $1 in
  start) start ;;
  stop) stop ;;
  reset)
    stop
    rm -f "$dir"/db.sqlite*
    cp "$dir/$3.sqlite" "$dir/db.sqlite"
    rm -rf "$XDG_CACHE_HOME"; mkdir -p "$XDG_CACHE_HOME"
    start ;;
esac
EOF
chmod +x "$work/ctl"

# Each server: a database with one user's token (the "empty" template), started.
for name in old new; do
  mkdir -p "$work/$name"
  bin=$old_server; [ "$name" = new ] && bin=$new_server
  echo "$bin" > "$work/$name/bin"
  "$bin" token create bench --database "$work/$name/empty.sqlite" 2>/dev/null | tail -n 1 > "$work/$name/token"
  rm -f "$work/$name/empty.sqlite-wal" "$work/$name/empty.sqlite-shm"
  cp "$work/$name/empty.sqlite" "$work/$name/db.sqlite"
  "$work/ctl" start "$name"
  echo "$name server: http://127.0.0.1:$(cat "$work/$name/port")"
done
old_url=http://127.0.0.1:$(cat "$work/old/port") old_token=$(cat "$work/old/token")
new_url=http://127.0.0.1:$(cat "$work/new/port") new_token=$(cat "$work/new/token")
# The environment of a command against each server (hyperfine runs it through sh -c).
old_http="RESV_SERVER=$old_url RESV_TOKEN=$old_token"
new_http="RESV_SERVER=$new_url RESV_TOKEN=$new_token"
hide() { sed -e "s/$old_token/\$OLD_TOKEN/g" -e "s/$new_token/\$NEW_TOKEN/g"; }

# 1,000 requests at Brooklyn Bridge (capacity 1,500 a day), party of 1, over the 30 days
# of June 2027: about 34 a day.
python3 - > "$work/batch.ndjson" <<'PY'
import json
for i in range(1000):
    print(json.dumps({"landmarkId": "Brooklyn Bridge", "date": f"2027-06-{i % 30 + 1:02d}T10:00:00Z", "partySize": 1}, separators=(",", ":")))
PY

if part 1; then
echo
echo "== 1. reserve --batch of 1,000 lines: HTTP vs file store"
hyperfine --warmup "$warmup" --runs "$runs" --export-json "$out/batch-fast.json" \
  -n "old file" --prepare "rm -f $work/store.json $work/store.json.lock" \
  "RESV_STORE=$work/store.json $old_resv reserve --batch $work/batch.ndjson" \
  -n "new file" --prepare "rm -f $work/store.json $work/store.json.lock" \
  "RESV_STORE=$work/store.json $new_resv reserve --batch $work/batch.ndjson" \
  -n "new HTTP" --prepare "$work/ctl reset new empty" \
  "$new_http $new_resv reserve --batch $work/batch.ndjson" 2>&1 | hide
# The old client's batch (1,000 requests, one curl process each) takes seconds a run:
# OLD_BATCH_RUNS (default RUNS) runs, no warm-up.
hyperfine --runs "${OLD_BATCH_RUNS:-$runs}" --export-json "$out/batch-old.json" \
  -n "old HTTP" --prepare "$work/ctl reset old empty" \
  "$old_http $old_resv reserve --batch $work/batch.ndjson" 2>&1 | hide
jq -s '{results: (.[0].results + .[1].results)}' "$out/batch-fast.json" "$out/batch-old.json" > "$out/batch.json"
fi
if part 2 || part 3; then
# Each server holds exactly the last run's 1,000 reservations (or books them now): keep
# that as "seeded".
if ! part 1; then
  env $old_http "$old_resv" reserve --batch "$work/batch.ndjson" > /dev/null
  # (a server without POST /reservations/batch, older than the new client: the old
  # client books one request a line)
  env $new_http "$new_resv" reserve --batch "$work/batch.ndjson" > /dev/null 2>&1 \
    || env $new_http "$old_resv" reserve --batch "$work/batch.ndjson" > /dev/null
fi
for name in old new; do
  "$work/ctl" stop "$name"
  rm -f "$work/$name/db.sqlite-wal" "$work/$name/db.sqlite-shm"
  cp "$work/$name/db.sqlite" "$work/$name/seeded.sqlite"
  "$work/ctl" start "$name"
done
for name in old new; do
  url=$old_url token=$old_token; [ "$name" = new ] && url=$new_url token=$new_token
  curl -sf -H "Authorization: Bearer $token" "$url/reservations" > "$work/$name/reservations.json"
  echo "$name server: $(jq length "$work/$name/reservations.json") reservations, $(wc -c < "$work/$name/reservations.json") bytes"
done

fi
if part 2; then
echo
echo "== 2. list --json of 1,000 reservations over HTTP vs one curl GET /reservations"
hyperfine --warmup 5 --runs 30 --export-json "$out/list.json" \
  -n "old curl" "curl -s -H 'Authorization: Bearer $old_token' $old_url/reservations > /dev/null" \
  -n "old list --json" "$old_http $old_resv list --json" \
  -n "new curl" "curl -s -H 'Authorization: Bearer $new_token' $new_url/reservations > /dev/null" \
  -n "new list --json" "$new_http $new_resv list --json" 2>&1 | hide
fi

if part 3; then
echo
echo "== 3. 20 commands in one repl session against the server"
# list ×4, landmarks ×3, show ×5, reserve ×4, cancel ×4, on reservations of the seeded database.
for name in old new; do
  python3 - "$work/$name/reservations.json" > "$work/$name/repl.txt" <<'PY'
import json, sys
ids = [r["id"] for r in json.load(open(sys.argv[1]))]
reserve = lambda day: f'reserve --landmark "Brooklyn Bridge" --date 2027-07-{day:02d}T10:00:00Z --party-size 2'
lines = ["list", "landmarks", f"show {ids[0]}", reserve(1), f"cancel {ids[1]}",
         f"show {ids[2]}", "list", reserve(2), f"cancel {ids[3]}", "landmarks",
         f"show {ids[4]}", reserve(3), f"cancel {ids[5]}", "list", f"show {ids[6]}",
         "landmarks", reserve(4), f"cancel {ids[7]}", f"show {ids[8]}", "list"]
assert len(lines) == 20
print("\n".join(lines))
PY
  env $( [ "$name" = old ] && echo "$old_http" || echo "$new_http" ) \
    "$( [ "$name" = old ] && echo "$old_resv" || echo "$new_resv" )" repl < "$work/$name/repl.txt" > "$work/$name/repl.out" 2>&1 \
    || { echo "$name repl failed:" >&2; tail -5 "$work/$name/repl.out" >&2; exit 1; }
done
hyperfine --warmup "$warmup" --runs "$runs" --export-json "$out/repl.json" \
  -n "old repl, 20 commands" --prepare "$work/ctl reset old seeded" \
  "$old_http $old_resv repl < $work/old/repl.txt" \
  -n "new repl, 20 commands" --prepare "$work/ctl reset new seeded" \
  "$new_http $new_resv repl < $work/new/repl.txt" 2>&1 | hide
fi

if part 4; then
echo
echo "== 4. a server that accepts and never answers, RESV_REQUEST_TIMEOUT=3: resv list"
python3 -u - > "$work/hung.port" <<'PY' &
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1])
held = []
while True:
    c, _ = s.accept()
    held.append(c)  # never read, never answered, never closed
PY
hung_pid=$!
for _ in $(seq 100); do [ -s "$work/hung.port" ] && break; sleep 0.05; done
hung_url=http://127.0.0.1:$(cat "$work/hung.port")
for name in old new; do
  bin=$old_resv; [ "$name" = new ] && bin=$new_resv
  rm -rf "$XDG_CACHE_HOME"; mkdir -p "$XDG_CACHE_HOME"
  start=$(date +%s.%N)
  status=0
  RESV_SERVER=$hung_url RESV_TOKEN=x RESV_REQUEST_TIMEOUT=3 "$bin" list > "$work/hung.out" 2>&1 || status=$?
  printf '%s: exit %s after %.1f s: %s\n' "$name" "$status" "$(echo "$(date +%s.%N) - $start" | bc)" "$(tail -n 1 "$work/hung.out")"
done
hyperfine --runs 3 -i --export-json "$out/hung.json" \
  -n "old list, hung server" --prepare "rm -rf $XDG_CACHE_HOME/resv" \
  "RESV_SERVER=$hung_url RESV_TOKEN=x RESV_REQUEST_TIMEOUT=3 $old_resv list" \
  -n "new list, hung server" --prepare "rm -rf $XDG_CACHE_HOME/resv" \
  "RESV_SERVER=$hung_url RESV_TOKEN=x RESV_REQUEST_TIMEOUT=3 $new_resv list"
fi

if part 5; then
echo
echo "== 5. start-up and file mode (a store of 20 reservations)"
export RESV_STORE=$work/small.json
head -n 20 "$work/batch.ndjson" | "$new_resv" reserve --batch - > /dev/null
"$old_resv" list > /dev/null  # the old build reads the new build's store
hyperfine -N --warmup 5 --runs 30 --export-json "$out/startup.json" \
  -n "old --version" "$old_resv --version" \
  -n "new --version" "$new_resv --version" \
  -n "old list (file)" "$old_resv list" \
  -n "new list (file)" "$new_resv list"
echo "ldd: old $(ldd "$old_resv" | wc -l) libraries, new $(ldd "$new_resv" | wc -l); libcurl linked: old $(ldd "$old_resv" | grep -c libcurl || true), new $(ldd "$new_resv" | grep -c libcurl || true)"
echo "LD_DEBUG=files, objects whose name has libcurl:" \
  "new list on a file: $(LD_DEBUG=files "$new_resv" list 2>&1 >/dev/null | grep -c 'file=libcurl' || true)," \
  "new --version: $(LD_DEBUG=files "$new_resv" --version 2>&1 >/dev/null | grep -c 'file=libcurl' || true)," \
  "new list over HTTP: $(env -u RESV_STORE RESV_SERVER="$new_url" RESV_TOKEN="$new_token" LD_DEBUG=files "$new_resv" list 2>&1 >/dev/null | grep -c 'file=libcurl' || true)"
unset RESV_STORE
fi

echo
echo "== medians (ms; JSON in $out)"
median() { [ -f "$out/$1.json" ] || { echo nan; return; }; jq -r --arg n "$2" '.results[] | select(.command == $n) | .median * 1000' "$out/$1.json"; }
row() { # figure file old-name new-name
  [ -f "$out/$2.json" ] || return 0
  local o n; o=$(median "$2" "$3"); n=$(median "$2" "$4")
  printf '%-46s %10.1f %10.1f %7.2f×\n' "$1" "$o" "$n" "$(echo "$n / $o" | bc -l)"
}
printf '%-46s %10s %10s %8s\n' figure old new new/old
row "reserve --batch 1,000, file store" batch "old file" "new file"
row "reserve --batch 1,000, HTTP" batch "old HTTP" "new HTTP"
row "curl GET /reservations (1,000)" list "old curl" "new curl"
row "list --json (1,000), HTTP" list "old list --json" "new list --json"
row "repl, 20 commands, HTTP" repl "old repl, 20 commands" "new repl, 20 commands"
row "list, hung server, RESV_REQUEST_TIMEOUT=3" hung "old list, hung server" "new list, hung server"
row "--version" startup "old --version" "new --version"
row "list, file store of 20" startup "old list (file)" "new list (file)"
ratio() { echo "$(median "$1" "$2") / $(median "$1" "$3")" | bc -l; }
part 1 && printf 'batch HTTP / file:       old %.1f×, new %.1f× (target ≤ 10×)\n' \
  "$(ratio batch "old HTTP" "old file")" "$(ratio batch "new HTTP" "new file")"
part 2 && printf 'list --json / curl:      old %.2f×, new %.2f× (target ≤ 1.5×)\n' \
  "$(ratio list "old list --json" "old curl")" "$(ratio list "new list --json" "new curl")"
part 4 && printf 'hung server, new:        %.2f s (target ≤ 4 s)\n' "$(echo "$(median hung "new list, hung server") / 1000" | bc -l)"
true
