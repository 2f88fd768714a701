"""Crash test: moves are posted to `kingpost serve` by several clients at
once; the server is killed with SIGKILL mid-load and started again. Every
move acknowledged with a 2xx must be stored, in order; no game may be
corrupt (its stored FEN equals the replay of its moves by `kingpost play`);
the service must serve again.

    python3 scripts/crash-test.py --database sqlite [--games 8] [--seconds 3]
    python3 scripts/crash-test.py --database postgres://postgres@127.0.0.1:5432/test

Standard library only. The Postgres run uses a fresh schema of that database.
"""

import argparse
import random
import subprocess
import sys
import tempfile
import threading
import time

from live_server import DEFAULT_BINARY, Server, scratch_database


def call(server, method, path, token=None, body=None):
    return server.call(method, path, token, body)


def account(server, name):
    password = "crash test password"
    call(server, "POST", "/accounts", body={"username": name, "password": password})
    status, session = call(server, "POST", "/auth/token", body={"grant_type": "password", "username": name, "password": password})
    assert status == 200, session
    scopes = ["game:read", "game:play", "challenge:write"]
    status, token = call(server, "POST", "/tokens", session["access_token"], {"name": "crash", "scopes": scopes})
    assert status == 201, token
    return token["token"]


def player(server, game_id, tokens, acknowledged, stop, seed):
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            status, game = call(server, "GET", f"/games/{game_id}", tokens["white"])
            if status != 200 or game["status"] != "started":
                return
            token = tokens[game["turn"]]
            move = rng.choice(game["legal_moves"])["uci"]
            status, answer = call(server, "POST", f"/games/{game_id}/moves", token, {"move": move, "ply": game["ply"]})
            if 200 <= status < 300:
                acknowledged.append(move)
        except (OSError, ValueError):
            return  # the server is gone


def replay_fen(binary, game):
    moves = [m["uci"] for m in game["moves"]]
    out = subprocess.run(
        [binary, "play", "--rules", game["rules"], "--fen", game["initial_fen"], *moves],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.splitlines()[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", default="sqlite", help="sqlite, or a postgres:// URL")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="kingpost-crash-")
    url, _ = scratch_database(args.database, work, "crash")
    server = Server(url, ["--no-rate-limits"], {"KINGPOST_JWT_SECRET": "crash-test-secret"}, binary=args.binary)
    server.start()
    white, black = account(server, "white"), account(server, "black")
    games = []
    for _ in range(args.games):
        status, challenge = call(server, "POST", "/challenges", white, {"rules": "standard", "days_per_move": 3, "color": "white", "opponent": "black"})
        status, game = call(server, "POST", f"/challenges/{challenge['id']}/accept", black)
        assert status == 201, game
        games.append(game["id"])

    stop = threading.Event()
    acknowledged = {game_id: [] for game_id in games}
    threads = [
        threading.Thread(target=player, args=(server, game_id, {"white": white, "black": black}, acknowledged[game_id], stop, i))
        for i, game_id in enumerate(games)
    ]
    for thread in threads:
        thread.start()
    time.sleep(args.seconds)
    server.kill()
    stop.set()
    for thread in threads:
        thread.join()

    server.start()
    failures, total = [], 0
    for game_id in games:
        status, game = call(server, "GET", f"/games/{game_id}", white)
        stored = [m["uci"] for m in game["moves"]]
        ack = acknowledged[game_id]
        total += len(ack)
        # Every acknowledged move is there, in order; at most the one in
        # flight when the server died may follow unacknowledged.
        if stored[: len(ack)] != ack or len(stored) - len(ack) > 1:
            failures.append(f"{game_id}: acknowledged {ack}, stored {stored}")
        if replay_fen(args.binary, game) != game["fen"]:
            failures.append(f"{game_id}: stored FEN {game['fen']} is not the replay of its moves")
    status, answer = call(server, "POST", f"/games/{games[0]}/resign", white)
    if status != 200:
        failures.append(f"the restarted server does not serve: {status} {answer}")
    server.kill()
    print(f"crash test ({args.database.split('://')[0]}): {total} acknowledged moves in {len(games)} games, "
          f"{len(failures)} failures")
    for failure in failures:
        print("  " + failure)
    if total == 0:
        print("  no move was acknowledged before the kill: nothing was tested")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
