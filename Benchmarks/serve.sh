# Shared by Benchmarks/server.sh and remote.sh: source it from one of them, from the
# repository root.
# Builds resv-server as `make install-server` does, starts it on a new SQLite file
# on a free loopback port, and gives $work (a temporary directory, removed on exit,
# the server stopped), $server_bin, $token (a user's) and $url.
set -euo pipefail
server_build=(swift build -c release --product resv-server --static-swift-stdlib --scratch-path .build-release)
"${server_build[@]}" >/dev/null
server_bin=$("${server_build[@]}" --show-bin-path)/resv-server
work=$(mktemp -d)
server_pid=
stop_server() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap stop_server EXIT
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

token=$("$server_bin" token create bench --database "$work/bench.sqlite" 2>/dev/null)
"$server_bin" serve --database "$work/bench.sqlite" --port 0 --log-level notice 2>"$work/log" &
server_pid=$!
port=
for _ in $(seq 300); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/log" >&2; exit 1; }
url=http://127.0.0.1:$port
