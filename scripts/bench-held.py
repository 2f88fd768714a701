"""Held connections: many players keep long polls and event streams open on
one `kingpost serve` while others move. Prints, beside a baseline measured
in the same run with nothing held:

- the caps: a 21st held request of one account is a 429, a 51st from one
  address too;
- the server's resident memory while everything is held, and its CPU time
  over an idle stretch;
- move latency and the latency from a move to its opponent's long poll
  waking (p50, p99).

    python3 scripts/bench-held.py                  # full size: 1,000 accounts,
                                                   # 10,000 long polls, 2,000 streams
    python3 scripts/bench-held.py --accounts 50    # small, as CI runs it

Every client connects from its own loopback address (127.1.x.y), as players
do from their own; all traffic stays on loopback and the run stops by
itself. Standard library only.
"""

import argparse
import asyncio
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSWORD = "correct horse battery staple"
POLLS_PER_ACCOUNT = 10
STREAMS_PER_ACCOUNT = 2


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def address_of(n):
    """The loopback address client `n` connects from."""
    return f"127.1.{n // 250}.{n % 250 + 1}"


class Http:
    """One HTTP/1.1 exchange at a time on a connection of its own."""

    def __init__(self, port, source):
        self.port, self.source = port, source

    async def request(self, method, path, token=None, body=None, headers=(), timeout=90):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(self.source, 0))
        try:
            return await asyncio.wait_for(self._exchange(reader, writer, method, path, token, body, headers), timeout)
        finally:
            writer.close()

    async def _exchange(self, reader, writer, method, path, token, body, headers):
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        head.extend(headers)
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        await writer.drain()
        status, answer_headers = await read_head(reader)
        length = int(answer_headers.get("content-length", "0"))
        payload = await reader.readexactly(length) if length else b""
        return status, answer_headers, json.loads(payload) if payload.startswith(b"{") else None


async def read_head(reader):
    line = await reader.readline()
    status = int(line.split()[1])
    headers = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            return status, headers
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()


async def open_stream(port, source, token):
    """An event stream held open: the reader and writer, once the head is read."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(
        f"GET /api/v1/stream/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
    )
    await writer.drain()
    status, _ = await read_head(reader)
    return status, reader, writer


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


async def gather_bounded(coroutines, at_once):
    gate = asyncio.Semaphore(at_once)

    async def run(coroutine):
        async with gate:
            return await coroutine

    return await asyncio.gather(*(run(c) for c in coroutines))


class Player:
    def __init__(self, n, port):
        self.n, self.name, self.http = n, f"player{n}", Http(port, address_of(n))
        self.token = None

    async def sign_up(self):
        await self.http.request("POST", "/api/v1/accounts", body={"username": self.name, "password": PASSWORD})
        _, _, session = await self.http.request(
            "POST", "/api/v1/auth/token", body={"grant_type": "password", "username": self.name, "password": PASSWORD}
        )
        self.token = session["access_token"]


async def start_game(white, black):
    _, _, challenge = await white.http.request(
        "POST", "/api/v1/challenges", white.token,
        {"rules": "standard", "days_per_move": 3, "color": "white", "opponent": black.name},
    )
    _, _, game = await black.http.request("POST", f"/api/v1/challenges/{challenge['id']}/accept", black.token)
    return game["id"]


async def etag_of(player, game_id):
    _, headers, _ = await player.http.request("GET", f"/api/v1/games/{game_id}", player.token)
    return headers["etag"]


async def long_poll(player, game_id, etag):
    """Holds a long poll; the time it was woken, or None if it timed out."""
    status, _, _ = await player.http.request(
        "GET", f"/api/v1/games/{game_id}?wait=60", player.token, headers=[f"If-None-Match: {etag}"]
    )
    return time.perf_counter() if status == 200 else None


async def keep_polling(player, game_id, etag):
    """Holds a long poll on the game again and again, as a waiting client does."""
    while True:
        status, headers, _ = await player.http.request(
            "GET", f"/api/v1/games/{game_id}?wait=60", player.token, headers=[f"If-None-Match: {etag}"]
        )
        etag = headers.get("etag", etag)
        if status not in (200, 304):
            await asyncio.sleep(1)


async def measure_moves(pairs, rounds):
    """Moves in `rounds` games, each against a long poll of its opponent
    held beforehand: move latencies and wake-up latencies, in ms."""
    move_ms, wake_ms = [], []
    for white, black, game_id in pairs[:rounds]:
        etag = await etag_of(black, game_id)
        waiting = asyncio.ensure_future(long_poll(black, game_id, etag))
        await asyncio.sleep(0.05)
        sent = time.perf_counter()
        status, _, answer = await white.http.request("POST", f"/api/v1/games/{game_id}/moves", white.token, {"move": "e4", "ply": 0})
        answered = time.perf_counter()
        assert status == 200, (status, answer)
        woken = await waiting
        assert woken is not None, "the opponent's poll was not woken"
        move_ms.append((answered - sent) * 1000)
        wake_ms.append((woken - sent) * 1000)
    return move_ms, wake_ms


async def main(args):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    binary = args.binary or os.path.join(ROOT, "target", "release" if args.release else "debug", "kingpost")
    if not os.path.exists(binary):
        subprocess.run(["cargo", "build", "-q", "--bin", "kingpost"] + (["--release"] if args.release else []), cwd=ROOT, check=True)
    port = free_port()
    work = tempfile.mkdtemp()
    server = subprocess.Popen(
        [binary, "serve", "--bind", f"127.0.0.1:{port}", "--database-url", os.path.join(work, "held.sqlite3"), "--no-rate-limits"],
        env={**os.environ, "KINGPOST_JWT_SECRET": "bench-held-secret", "RUST_LOG": "warn"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    held = []
    try:
        for _ in range(300):
            try:
                await Http(port, "127.0.0.1").request("GET", "/api/v1/variants")
                break
            except OSError:
                await asyncio.sleep(0.1)
        print(f"server started: resident memory {rss_mib(server.pid):.0f} MiB", flush=True)
        accounts = args.accounts - args.accounts % 2
        players = [Player(n, port) for n in range(accounts)]
        started = time.perf_counter()
        await gather_bounded((p.sign_up() for p in players), 16)
        print(f"{accounts} accounts signed up in {time.perf_counter() - started:.1f} s; "
              f"server resident memory {rss_mib(server.pid):.0f} MiB", flush=True)
        pairs = []
        for i in range(0, accounts, 2):
            white, black = players[i], players[i + 1]
            pairs.append((white, black, await start_game(white, black)))
        # The baseline: moves with nothing held, in half of the games.
        half = len(pairs) // 2
        rounds = min(args.moves, half)
        base_move, base_wake = await measure_moves(pairs[half:], rounds)

        # Hold: every player polls its game, and follows its events.
        games_of = {}
        for white, black, game_id in pairs:
            games_of[white.n] = games_of[black.n] = game_id
        holders = players
        started = time.perf_counter()
        etags = {p.n: await etag_of(p, games_of[p.n]) for p in holders}
        polls = [
            asyncio.ensure_future(keep_polling(p, games_of[p.n], etags[p.n]))
            for p in holders
            for _ in range(POLLS_PER_ACCOUNT)
        ]
        streams = await gather_bounded(
            (open_stream(port, address_of(p.n), p.token) for p in holders for _ in range(STREAMS_PER_ACCOUNT)), 200
        )
        assert all(status == 200 for status, _, _ in streams), [s for s, _, _ in streams if s != 200][:5]
        held = [writer for _, _, writer in streams]
        await asyncio.sleep(2)
        print(f"holding {len(polls)} long polls and {len(streams)} streams "
              f"(opened in {time.perf_counter() - started:.1f} s)", flush=True)

        # The caps, as documented: 20 held for an account, 50 from an address.
        probe = holders[0]
        extra, refusal = [], None
        while refusal is None and len(extra) < 30:
            status, _, writer = await open_stream(port, address_of(probe.n), probe.token)
            extra.append(writer)
            refusal = status if status != 200 else None
        account_cap = POLLS_PER_ACCOUNT + STREAMS_PER_ACCOUNT + len(extra) - 1
        # From the same address, with other players' tokens (whites, which
        # the measured moves below hold no extra poll for).
        from_address, address_refusal = account_cap, None
        for other in [p for p in holders[1:] if p.n % 2 == 0][:5]:
            for _ in range(8):
                status, _, writer = await open_stream(port, address_of(probe.n), other.token)
                extra.append(writer)
                if status != 200:
                    address_refusal = status
                    break
                from_address += 1
            if address_refusal:
                break
        for writer in extra:
            writer.close()
        print(f"caps: one account held {account_cap}, then {refusal} (expected 20, 429); "
              f"one address held {from_address}, then {address_refusal} (expected 50, 429)", flush=True)
        caps_ok = (account_cap, refusal, from_address, address_refusal) == (20, 429, 50, 429)
        await asyncio.sleep(1)

        idle_from = cpu_seconds(server.pid)
        await asyncio.sleep(args.idle)
        idle_cpu = cpu_seconds(server.pid) - idle_from
        memory = rss_mib(server.pid)
        held_move, held_wake = await measure_moves(pairs[:half], rounds)
        memory = max(memory, rss_mib(server.pid))

        def line(name, base, loaded):
            return (f"{name}: p50 {statistics.median(base):.1f} ms -> {statistics.median(loaded):.1f} ms, "
                    f"p99 {percentile(base, 0.99):.1f} ms -> {percentile(loaded, 0.99):.1f} ms "
                    f"(ratio of p99 {percentile(loaded, 0.99) / percentile(base, 0.99):.2f})")

        print(f"server resident memory while holding: {memory:.0f} MiB")
        print(f"server CPU over {args.idle:.0f} s idle while holding: {idle_cpu:.2f} s")
        print(line(f"move answered ({rounds} moves, nothing held -> held)", base_move, held_move))
        print(line("opponent woken", base_wake, held_wake))
        ok = caps_ok and (not args.check or (memory < 300 and percentile(held_wake, 0.99) < 100))
        for poll in polls:
            poll.cancel()
        return 0 if ok else 1
    finally:
        for writer in held:
            writer.close()
        server.kill()
        server.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=100, help="moves measured, with and without the load")
    parser.add_argument("--idle", type=float, default=10, help="seconds of idle CPU measured")
    parser.add_argument("--release", action="store_true", help="run the release build")
    parser.add_argument("--binary", help="the kingpost binary to run")
    parser.add_argument("--check", action="store_true", help="fail past 300 MiB or a p99 wake-up of 100 ms")
    sys.exit(asyncio.run(main(parser.parse_args())))
