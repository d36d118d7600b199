#!/usr/bin/env bash
# AsyncHTTPClient, the candidate remote mode rejected, next to the libcurl-by-dlopen client:
# build time, start-up and per-request time (BENCHMARKS.md, "libcurl by dlopen vs
# AsyncHTTPClient").
#   Benchmarks/ahc-candidate.sh RESV RESV_SERVER
# (or RESV_NEW and RESV_SERVER_NEW): a release resv and resv-server of this checkout.
# Creates AHC_DIR (default /tmp/ahc, removed and made again; never committed): a package
# with one dependency, .package(url: "https://github.com/swift-server/async-http-client",
# from: "1.37.0"), and two executables: ahc-get (GET $AHC_URL with
# "Authorization: Bearer $AHC_TOKEN" through AsyncHTTPClient, prints the body's byte count;
# exits at once without AHC_URL) and noop (an empty Swift program, the floor).
# Then:
#   1. its clean debug build: `swift package resolve` (from SwiftPM's repository cache) and
#      `swift build`, each timed; the same two for `swift build --product resv` on a fresh
#      clone of this repository's HEAD (MAIN_REPO, default: the repository of this script);
#   2. release builds of ahc-get and noop; start-up, hyperfine -N: noop, ahc-get with no URL,
#      resv --version;
#   3. per request against a resv-server holding 1,000 reservations: curl, ahc-get,
#      resv list --json (two GETs, landmarks and reservations, mapping and rendering).
# SEED_RESV names a client that can book on RESV_SERVER if RESV cannot (an older server).
# SKIP_BUILD_TIMES=1 skips 1 (and reuses AHC_DIR's release build if there is one).
# hyperfine's JSON goes to RESV_BENCH_OUT (default /tmp/resv-remote-bench).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
resv=${1:-${RESV_NEW:-}}
server=${2:-${RESV_SERVER_NEW:-}}
for bin in "$resv" "$server"; do
  [ -x "$bin" ] || { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2; echo "not an executable: '$bin'" >&2; exit 64; }
done
resv=$(realpath "$resv") server=$(realpath "$server")
ahc=${AHC_DIR:-/tmp/ahc}
main_repo=${MAIN_REPO:-$(git -C "$here" rev-parse --show-toplevel)}
out=${RESV_BENCH_OUT:-/tmp/resv-remote-bench}
mkdir -p "$out"
work=$(mktemp -d /tmp/resv-ahc.XXXXXX)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME=$work/xdg/config XDG_CACHE_HOME=$work/xdg/cache \
  XDG_DATA_HOME=$work/xdg/data XDG_STATE_HOME=$work/xdg/state
unset RESV_SERVER RESV_TOKEN RESV_STORE RESV_PROFILE RESV_CONFIG
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "swift: $(swift --version 2>&1 | head -n 1)"

seconds() { # the wall time of a command, in seconds; its output to $work/last.log
  local start status=0; start=$(date +%s.%N)
  "$@" > "$work/last.log" 2>&1 || status=$?
  [ "$status" = 0 ] || { tail -20 "$work/last.log" >&2; exit "$status"; }
  printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)"
}

make_package() {
  rm -rf "$ahc"
  mkdir -p "$ahc/Sources/ahc-get" "$ahc/Sources/noop"
  cat > "$ahc/Package.swift" <<'EOF'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ahc-candidate",
    dependencies: [.package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0")],
    targets: [
        .executableTarget(name: "ahc-get", dependencies: [.product(name: "AsyncHTTPClient", package: "async-http-client")]),
        .executableTarget(name: "noop"),
    ]
)
EOF
  echo '// Starts and exits: the start-up floor of a Swift executable.' > "$ahc/Sources/noop/main.swift"
  cat > "$ahc/Sources/ahc-get/main.swift" <<'EOF'
// GET $AHC_URL with "Authorization: Bearer $AHC_TOKEN" through AsyncHTTPClient and print
// the body's byte count. With no AHC_URL it exits at once (the start-up figure).
import AsyncHTTPClient
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    let line = "ahc-get: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func env(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
}

guard let url = env("AHC_URL") else { exit(0) }
var request = HTTPClientRequest(url: url)
request.headers.add(name: "Authorization", value: "Bearer \(env("AHC_TOKEN") ?? "")")
request.headers.add(name: "Accept", value: "application/json")
let client = HTTPClient(eventLoopGroupProvider: .singleton)
do {
    let response = try await client.execute(request, timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 256 << 20)
    guard response.status == .ok else { fail("HTTP \(response.status.code)") }
    print(body.readableBytes)
    try await client.shutdown()
} catch {
    fail("\(error)")
}
EOF
}

if [ "${SKIP_BUILD_TIMES:-}" != 1 ] || [ ! -x "$ahc/.build/release/ahc-get" ]; then
  make_package
fi
if [ "${SKIP_BUILD_TIMES:-}" != 1 ]; then
  echo
  echo "== 1. clean debug builds (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
  resolve=$(cd "$ahc" && seconds swift package resolve)
  build=$(cd "$ahc" && seconds swift build)
  echo "AsyncHTTPClient package: resolve ${resolve} s, swift build ${build} s (load $(cut -d' ' -f1-3 /proc/loadavg))"
  clone=$work/resv-clone
  git clone -q "$main_repo" "$clone"
  resolve=$(cd "$clone" && seconds swift package resolve)
  build=$(cd "$clone" && seconds swift build --product resv)
  echo "resv at $(git -C "$clone" rev-parse --short HEAD): resolve ${resolve} s, swift build --product resv ${build} s (load $(cut -d' ' -f1-3 /proc/loadavg))"
  rm -rf "$clone"
fi
if [ ! -x "$ahc/.build/release/ahc-get" ]; then
  (cd "$ahc" && swift build -c release --product ahc-get > "$work/last.log" 2>&1 && swift build -c release --product noop >> "$work/last.log" 2>&1) \
    || { tail -20 "$work/last.log" >&2; exit 1; }
fi
ahc_get=$ahc/.build/release/ahc-get noop=$ahc/.build/release/noop
echo "ahc-get: $(du -h "$ahc_get" | cut -f1), $(ldd "$ahc_get" | wc -l) shared libraries; resv: $(du -h "$resv" | cut -f1), $(ldd "$resv" | wc -l)"

echo
echo "== 2. start-up"
hyperfine -N --warmup 5 --runs 50 --export-json "$out/ahc-startup.json" \
  -n "noop" "$noop" -n "ahc-get, no URL" "$ahc_get" -n "resv --version" "$resv --version"

echo
echo "== 3. one GET /reservations (1,000 reservations)"
"$server" token create bench --database "$work/db.sqlite" 2>/dev/null | tail -n 1 > "$work/token"
token=$(cat "$work/token")
"$server" serve --database "$work/db.sqlite" --port 0 --log-level notice 2>"$work/server.log" &
server_pid=$!
port=
for _ in $(seq 600); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/server.log")
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { cat "$work/server.log" >&2; exit 1; }
url=http://127.0.0.1:$port
python3 -c '
import json
for i in range(1000):
    print(json.dumps({"landmarkId": "Brooklyn Bridge", "date": f"2027-06-{i % 30 + 1:02d}T10:00:00Z", "partySize": 1}))' \
  > "$work/batch.ndjson"
# SEED_RESV: a client that books them on a server older than RESV (no POST /reservations/batch).
RESV_SERVER=$url RESV_TOKEN=$token "$resv" reserve --batch "$work/batch.ndjson" > /dev/null 2>&1 \
  || RESV_SERVER=$url RESV_TOKEN=$token "${SEED_RESV:-$resv}" reserve --batch "$work/batch.ndjson" > /dev/null
echo "ahc-get prints $(AHC_URL=$url/reservations AHC_TOKEN=$token "$ahc_get") bytes; curl $(curl -s -H "Authorization: Bearer $token" "$url/reservations" | wc -c)"
export AHC_URL=$url/reservations AHC_TOKEN=$token RESV_SERVER=$url RESV_TOKEN=$token
hyperfine --warmup 5 --runs 30 --export-json "$out/ahc-request.json" \
  -n "curl" "curl -s -H 'Authorization: Bearer $token' $url/reservations > /dev/null" \
  -n "ahc-get" "$ahc_get" \
  -n "resv list --json" "$resv list --json" 2>&1 | sed "s/$token/\$TOKEN/g"
echo
echo "== medians (ms)"
jq -r '.results[] | "\(.command)\t\(.median * 1000 | . * 10 | round / 10)"' "$out/ahc-startup.json" "$out/ahc-request.json" \
  | sed "s/$token/\$TOKEN/g"
