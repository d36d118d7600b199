#!/usr/bin/env python3
"""The TCP proxies scripts/faults puts between every pair it breaks (docs/testing.md, "Faults"):
resv-server -> PostgreSQL, Patroni -> etcd, replicas -> the leader (PostgreSQL and Patroni's
REST API), clients -> resv-server. One asyncio process, loopback only, standard library only.

    fault_proxy.py CONFIG.json
CONFIG: {"control": PORT, "routes": [{"name": N, "listen": PORT, "target": PORT}, ...]}; every
port is 127.0.0.1's. Commands on the control port, a line each, answered `ok` (or `error ...`):
    set NAME[,NAME...] MODE [KEY=VALUE...]
MODE is one of
    open          bytes flow both ways (the start)
    blackhole     a partition: nothing flows either way, nothing is closed; a new connection is
                  accepted and waits (its SYN answered, nothing more); when opened again, what was
                  held flows on, as TCP's retransmissions would deliver it
    oneway        hold=up|down: the bytes of one direction are held (up: client -> target), the
                  other's flow
    slow          delay=MS jitter=MS loss=P: every chunk waits DELAY +- JITTER ms, and with
                  probability P 200 ms more (a TCP stream loses nothing: a lost segment is a
                  retransmission's delay, the minimum RTO of Linux)
    drop-answers  p=P: an answer (a chunk target -> client) is, with probability P, not passed on
                  and both connections are closed: the target acted, the client never heard
    lost-ack      n=N: the next N requests `POST /reservations` are never passed on; the client is
                  answered 201 with the reservation it asked for (its id) - a seeded bug
                  (scripts/faults --seed-bug lost-ack) the checker must catch
It prints nothing but errors; counts per route come back from `stats` (a JSON line).
"""
import asyncio
import json
import random
import sys
import time

sys.dont_write_bytecode = True

LOOPBACK = "127.0.0.1"
RTO = 0.2


class Route:
    def __init__(self, spec):
        self.name, self.listen, self.target = spec["name"], spec["listen"], spec["target"]
        self.mode, self.params = "open", {}
        self.changed = asyncio.Event()  # set and replaced at every change of mode
        self.connections = set()
        self.stats = {"connections": 0, "dropped": 0, "faked": 0}
        self.rng = random.Random(hash(self.name) & 0xFFFF)

    def set(self, mode, params):
        self.mode, self.params = mode, params
        self.changed.set()
        self.changed = asyncio.Event()

    def flows(self, direction):
        if self.mode == "blackhole":
            return False
        if self.mode == "oneway":
            return self.params.get("hold", "down") != direction
        return True

    async def gate(self, direction):
        while not self.flows(direction):
            await self.changed.wait()

    def delay(self):
        if self.mode != "slow":
            return 0.0
        ms = float(self.params.get("delay", 50)) + self.rng.uniform(-1, 1) * float(self.params.get("jitter", 0))
        extra = RTO if self.rng.random() < float(self.params.get("loss", 0)) else 0.0
        return max(0.0, ms / 1000) + extra


def whole_request(data):
    """Whether DATA holds a request's head and its whole body (Content-Length), so the body's
    id can be answered: a body that comes in a later chunk is passed on, never faked with no id."""
    head, found, body = data.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                return len(body) >= int(value.strip())
            except ValueError:
                return False
    return True


def fake_created(request):
    """201 for a POST /reservations: the reservation the body asked for, never stored."""
    head, _, body = request.partition(b"\r\n\r\n")
    try:
        asked = json.loads(body)
    except ValueError:
        asked = {}
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    answer = {"id": asked.get("id"), "landmarkId": asked.get("landmarkId"), "date": asked.get("date"),
              "partySize": asked.get("partySize"), "status": "confirmed", "version": 1, "createdAt": now}
    data = json.dumps(answer).encode()
    return (b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nConnection: close\r\n"
            + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)


async def pump(route, direction, reader, writer, peer_writer, closing):
    """Bytes READER -> WRITER in order, each chunk through the route's mode as it is then."""
    queue = asyncio.Queue()

    async def receive():
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                await queue.put((time.monotonic() + route.delay(), data))
        except (ConnectionError, OSError):
            pass
        await queue.put((0, None))

    async def send():
        try:
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                await route.gate(direction)
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if direction == "down" and route.mode == "drop-answers" \
                        and route.rng.random() < float(route.params.get("p", 0)):
                    route.stats["dropped"] += 1
                    break
                if direction == "up" and route.mode == "lost-ack" and int(route.params.get("n", 0)) > 0 \
                        and data.startswith(b"POST /reservations ") and whole_request(data):
                    route.params["n"] = str(int(route.params["n"]) - 1)
                    route.stats["faked"] += 1
                    peer_writer.write(fake_created(data))
                    await peer_writer.drain()
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        closing.set()

    await asyncio.gather(receive(), send())


async def serve(route, client_reader, client_writer):
    route.stats["connections"] += 1
    closing = asyncio.Event()
    try:
        await route.gate("up")  # a partition answers no SYN beyond the accept: nothing flows
        target_reader, target_writer = await asyncio.open_connection(LOOPBACK, route.target)
    except (ConnectionError, OSError):
        client_writer.close()
        return
    route.connections.add(closing)
    up = asyncio.ensure_future(pump(route, "up", client_reader, target_writer, client_writer, closing))
    down = asyncio.ensure_future(pump(route, "down", target_reader, client_writer, target_writer, closing))
    await closing.wait()
    for w in (client_writer, target_writer):
        try:
            w.close()
        except Exception:
            pass
    for task in (up, down):
        task.cancel()
    route.connections.discard(closing)


async def control(routes, reader, writer):
    while True:
        line = await reader.readline()
        if not line:
            break
        words = line.decode().split()
        try:
            if words == ["stats"]:
                answer = json.dumps({r.name: dict(r.stats, mode=r.mode) for r in routes.values()})
            elif len(words) >= 3 and words[0] == "set":
                params = dict(w.split("=", 1) for w in words[3:])
                for name in words[1].split(","):
                    routes[name].set(words[2], params)
                answer = "ok"
            else:
                answer = f"error: unknown command {line.decode().strip()!r}"
        except (KeyError, ValueError) as error:
            answer = f"error: {error}"
        writer.write(answer.encode() + b"\n")
        await writer.drain()
    writer.close()


async def main(config):
    routes = {spec["name"]: Route(spec) for spec in config["routes"]}
    for route in routes.values():
        await asyncio.start_server(lambda r, w, route=route: serve(route, r, w), LOOPBACK, route.listen,
                                   reuse_address=True)
    await asyncio.start_server(lambda r, w: control(routes, r, w), LOOPBACK, config["control"], reuse_address=True)
    print("ready", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(json.load(open(sys.argv[1]))))
