#!/usr/bin/env bash
# BENCHMARKS.md's "1,000 watchers on one server": 1,000 concurrent `GET /changes` long polls
# on one resv-server (SQLite, loopback). Reported:
#   1. POST /reservations throughput (8 connections, 10 s) with no watcher;
#   2. the same with 1,000 watchers of another user waiting (idle polls), and the server's
#      memory (VmRSS) with them;
#   3. 1,000 watchers of the booking user itself: 100 bookings at 10 a second, the delay from
#      sending each POST to its change reaching each watcher (p50, p99, max over 100,000
#      deliveries), and the throughput while every booking wakes all 1,000.
# The watchers are one asyncio process (keep-alive HTTP/1.1, each a loop of
# `GET /changes?after=CURSOR&wait=30`); the client's own work is in the delays.
#
#   Benchmarks/watchers.sh
#
# RESV_SERVER_BIN names a build to measure (default: the debug build of this tree).
# WATCHERS (default 1000), SECONDS_PER_RUN (default 10). Needs python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
server=${RESV_SERVER_BIN:-$(swift build --product resv-server --show-bin-path)/resv-server}
[ -n "${RESV_SERVER_BIN:-}" ] || swift build --product resv-server >/dev/null
ulimit -n 8192
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
db=$work/bench.sqlite
booker=$("$server" token create booker --database "$db" 2>/dev/null)
other=$("$server" token create other --database "$db" 2>/dev/null)
"$server" serve --database "$db" --port 0 --log-level error 2>"$work/server.log" &
pid=$!
url=
for _ in $(seq 600); do
  url=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/server.log")
  [ -n "$url" ] && break
  sleep 0.1
done
# The log level hides the line: ask the kernel for the port instead.
if [ -z "$url" ]; then
  for _ in $(seq 600); do
    port=$(ss -ltnpH 2>/dev/null | grep "pid=$pid," | awk '{print $4}' | sed 's/.*://' | head -1)
    [ -n "$port" ] && url=http://127.0.0.1:$port && break
    sleep 0.1
  done
fi
[ -n "$url" ] || { cat "$work/server.log" >&2; exit 1; }

python3 - "$url" "$booker" "$other" "$pid" "${WATCHERS:-1000}" "${SECONDS_PER_RUN:-10}" <<'PY'
import asyncio, json, statistics, sys, time, urllib.parse

url, booker, other, pid, watchers, seconds = sys.argv[1:4] + [int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])]
host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port

class Connection:
    """One keep-alive HTTP/1.1 connection."""
    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(host, port)
        return self

    async def request(self, method, path, token, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return status, json.loads(await self.reader.readexactly(length)) if length else None

def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0

day = [0]
def booking():
    day[0] += 1
    return {"landmarkId": "bf3703bb-31cd-47f6-9f24-25165f85296c", "partySize": 1,
            "date": time.strftime("%Y-%m-%dT10:00:00Z", time.gmtime(2_000_000_000 + (day[0] % 3000) * 86400))}

async def throughput(label):
    done = 0
    deadline = time.monotonic() + seconds
    async def writer():
        nonlocal done
        connection = await Connection().open()
        while time.monotonic() < deadline:
            status, _ = await connection.request("POST", "/reservations", booker, booking())
            if status == 201:
                done += 1
    await asyncio.gather(*(writer() for _ in range(8)))
    rate = done / seconds
    print(f"{label:55} {rate:8.0f} POST/s   server VmRSS {rss():6.1f} MiB")
    return rate

async def watch(token, received, stop, ready):
    connection = await Connection().open()
    _, page = await connection.request("GET", "/changes", token)
    cursor = page["cursor"]
    ready.append(1)
    while not stop.is_set():
        status, page = await connection.request("GET", f"/changes?after={cursor}&wait=30", token)
        now = time.monotonic()
        if status != 200:
            raise SystemExit(f"GET /changes answered {status}: {page}")
        for change in page["changes"]:
            received.setdefault(change["reservationId"], []).append(now)
        cursor = page["cursor"]

async def start(token, received):
    stop, ready = asyncio.Event(), []
    tasks = [asyncio.create_task(watch(token, received, stop, ready)) for _ in range(watchers)]
    while len(ready) < watchers:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1)  # every one is in its long poll
    return stop, tasks

async def main():
    print(f"{watchers} watchers; throughput: 8 connections, {seconds} s each")
    base = await throughput("no watcher")
    stop, tasks = await start(other, {})
    idle = await throughput(f"{watchers} watchers of another user, waiting")
    for task in tasks:
        task.cancel()
    received = {}
    stop, tasks = await start(booker, received)
    connection = await Connection().open()
    sent = {}
    for _ in range(100):
        at = time.monotonic()
        status, record = await connection.request("POST", "/reservations", booker, booking())
        sent[record["id"]] = at
        await asyncio.sleep(0.1)
    await asyncio.sleep(2)
    delays = sorted(t - sent[i] for i in sent for t in received.get(i, []))
    missing = 100 * watchers - len(delays)
    q = lambda p: delays[min(len(delays) - 1, int(p * len(delays)))]
    print(f"delay from POST to each watcher: p50 {q(0.5) * 1000:.0f} ms, p99 {q(0.99) * 1000:.0f} ms, "
          f"max {delays[-1] * 1000:.0f} ms over {len(delays)} deliveries ({missing} missing); VmRSS {rss():.1f} MiB")
    woken = await throughput(f"{watchers} watchers of the booking user, all woken")
    print(f"with idle watchers {idle / base:.2f}x the throughput without; with every booking waking all {woken / base:.2f}x")
    for task in tasks:
        task.cancel()

asyncio.run(main())
PY
