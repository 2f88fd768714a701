"""Full-disk test: `kingpost serve` keeps its database on a small file
system, which is then filled. Moves, sign-ups and an import sent while it
is full must be answered `503 service_busy` with `Retry-After` (or
succeed), never `500`; the log must say why; every move acknowledged must
be stored, and once space returns the service must serve again.

    sudo python3 scripts/full-disk-test.py --database sqlite
    sudo python3 scripts/full-disk-test.py --database postgres://postgres@127.0.0.1:5432/test

SQLite keeps its file on a small tmpfs; Postgres keeps a fresh database in
a tablespace on one (its write-ahead log stays where the server keeps it).
Mounting needs root: without it the test says it is skipped. Standard
library only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
crash = __import__("crash-test")
from live_server import Server  # noqa: E402


def call(server, method, path, token=None, body=None, raw=None):
    """Status, headers and JSON body of a request (nothing raised for 4xx/5xx)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/v1{path}", data=data, method=method)
    request.add_header("Content-Type", "application/x-chess-pgn" if raw is not None else "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read() or b"null")


def fill(directory):
    """Writes a file in `directory` until the file system is full (a file
    system the database has filled already refuses even the file)."""
    try:
        with open(os.path.join(directory, "filler"), "wb") as filler:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
    except OSError:
        pass


def mount_small(directory, size):
    os.makedirs(directory, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", directory], check=True)


def sqlite_database(work):
    mount_small(work, "8m")
    return os.path.join(work, "full.sqlite3"), work, lambda: None


def postgres_database(url, work):
    mount_small(work, "24m")
    shutil.chown(work, "postgres", "postgres")
    name = f"kingpost_full_{os.getpid()}"
    psql = lambda sql: subprocess.run(["psql", url, "-q", "-c", sql], check=True, capture_output=True)
    psql(f"CREATE TABLESPACE {name} LOCATION '{work}'")
    psql(f"CREATE DATABASE {name} TABLESPACE {name}")
    parts = urllib.parse.urlsplit(url)
    database_url = urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))
    # The tablespace's own directory, where Postgres writes the tables.
    return database_url, work, lambda: (psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"), psql(f"DROP TABLESPACE IF EXISTS {name}"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", default="sqlite", help="sqlite, or a postgres:// URL")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--binary", default=os.environ.get("KINGPOST", os.path.join(ROOT, "target", "debug", "kingpost")))
    args = parser.parse_args()
    kind = args.database.split("://")[0]
    if os.geteuid() != 0:
        print(f"full-disk test ({kind}): skipped, mounting a small file system needs root")
        return 0
    work = tempfile.mkdtemp(prefix="kingpost-full-")
    if args.database == "sqlite":
        url, disk, drop = sqlite_database(work)
    else:
        url, disk, drop = postgres_database(args.database, work)
    log = tempfile.TemporaryFile(mode="w+")
    server = Server(url, ["--no-rate-limits"], {"KINGPOST_JWT_SECRET": "full-disk-secret"}, binary=args.binary)
    failures = []
    try:
        server.start(log)
        white, black = crash.account(server, "white"), crash.account(server, "black")
        games = []
        for _ in range(4):
            _, _, challenge = call(server, "POST", "/challenges", white, {"rules": "standard", "days_per_move": 3, "color": "white", "opponent": "black"})
            status, _, game = call(server, "POST", f"/challenges/{challenge['id']}/accept", black)
            assert status == 201, game
            games.append(game["id"])
        fill(disk)

        answers, acknowledged = [], {game_id: [] for game_id in games}
        stop = threading.Event()

        def play(game_id):
            tokens = {"white": white, "black": black}
            while not stop.is_set():
                status, headers, game = call(server, "GET", f"/games/{game_id}", white)
                if status != 200 or game["status"] != "started":
                    answers.append((status, headers, game))
                    return
                move = game["legal_moves"][0]["uci"]
                answer = call(server, "POST", f"/games/{game_id}/moves", tokens[game["turn"]], {"move": move, "ply": game["ply"]})
                answers.append(answer)
                if answer[0] == 200:
                    acknowledged[game_id].append(move)

        threads = [threading.Thread(target=play, args=(game_id,)) for game_id in games]
        for thread in threads:
            thread.start()
        for n in range(20):
            answers.append(call(server, "POST", "/accounts", body={"username": f"newcomer{n}", "password": "a long password"}))
        pgn = "".join(f'[Event "full {n}"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n' for n in range(500)).encode()
        answers.append(call(server, "POST", "/imports", white, raw=pgn))
        time.sleep(args.seconds)
        stop.set()
        for thread in threads:
            thread.join()

        statuses = sorted({status for status, _, _ in answers})
        busy = [(headers, body) for status, headers, body in answers if status == 503]
        for status, _, body in answers:
            if status >= 500 and status != 503:
                failures.append(f"{status}: {body}")
        for headers, body in busy:
            if body.get("code") != "service_busy" or not headers.get("Retry-After"):
                failures.append(f"a 503 without service_busy and Retry-After: {body}")
        if not busy:
            failures.append(f"the disk never filled: every answer was one of {statuses}")
        log.seek(0)
        if busy and "the database cannot write" not in log.read():
            failures.append("the log does not say why the database cannot write")

        os.remove(os.path.join(disk, "filler"))
        for game_id in games:
            status, _, game = call(server, "GET", f"/games/{game_id}", white)
            stored = [m["uci"] for m in game["moves"]]
            if stored[: len(acknowledged[game_id])] != acknowledged[game_id]:
                failures.append(f"{game_id}: acknowledged {acknowledged[game_id]}, stored {stored}")
            status, _, answer = call(server, "POST", f"/games/{game_id}/moves", white if game["turn"] == "white" else black,
                                     {"move": game["legal_moves"][0]["uci"], "ply": game["ply"]})
            if status != 200:
                failures.append(f"with space again, a move is refused: {status} {answer}")
        print(f"full-disk test ({kind}): {len(answers)} requests while full, answered {statuses}, "
              f"{len(busy)} of them 503; {sum(map(len, acknowledged.values()))} moves acknowledged; "
              f"{len(failures)} failures")
    finally:
        if server.process:
            server.kill()
        drop()
        subprocess.run(["umount", disk], check=False)
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures[:20]:
        print("  " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
