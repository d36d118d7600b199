# Shared by Benchmarks/server.sh and remote.sh: source it from one of them, from the
# repository root.
# Builds resv-server as `make install-server` does, starts it on a new SQLite file
# on a free loopback port, and gives $work (a temporary directory, removed on exit,
# the server stopped), $server_bin, $token (a user's) and $url.
set -euo pipefail
# RESV_SERVER_BIN names a resv-server already built (to compare two builds, or skip the build);
# RESV_SERVE_ARGS adds options to `serve`.
if [ -n "${RESV_SERVER_BIN:-}" ]; then
  server_bin=$RESV_SERVER_BIN
else
  server_build=(swift build -c release --product resv-server --static-swift-stdlib --scratch-path .build-release)
  "${server_build[@]}" >/dev/null
  server_bin=$("${server_build[@]}" --show-bin-path)/resv-server
fi
work=$(mktemp -d)
server_pid=
stop_server() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap stop_server EXIT
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

token=$("$server_bin" token create bench --database "$work/bench.sqlite" 2>/dev/null)
# shellcheck disable=SC2086 # RESV_SERVE_ARGS is a list of options
"$server_bin" serve --database "$work/bench.sqlite" --port 0 --log-level notice ${RESV_SERVE_ARGS:-} 2>"$work/log" &
server_pid=$!
port=
for _ in $(seq 300); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/log" >&2; exit 1; }
url=http://127.0.0.1:$port
# wrk's script for POST /reservations as $token: a new booking per request, no key.
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer $token"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2032-06-01T10:00:00Z","partySize":2}'
LUA

# Books 100 reservations for $token, one a day from 2031-01-02 (Golden Gate Bridge, 2 people).
seed_reservations() {
  local day date
  for day in $(seq 100); do
    date=$(date -u -d "2031-01-01 + $day days" +%Y-%m-%dT10:00:00Z)
    curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
      -d "{\"landmarkId\":\"7c6984ff-188e-417e-b476-ec5f30b8d745\",\"date\":\"$date\",\"partySize\":2}" "$url/reservations"
  done
}
