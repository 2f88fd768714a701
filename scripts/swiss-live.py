"""A Swiss played through a live `kingpost serve`, each round's pairing
checked against py4swiss's Dutch engine reading the server's own TRF
export: the server's report is a file another pairing program reads, and
what it pairs from it is what the server paired.

    pip install py4swiss==0.3.1
    python3 scripts/swiss-live.py [--database sqlite|URL] [--players 15] [--rounds 5] [--seed N]

Players sign up and join; the Swiss starts when full. After each round is
paired the script fetches `report.trf`, cuts it to the rounds before (an
absence already written stays), lets py4swiss pair it and compares pairs,
colours and order with the server's boards and bye; then it ends every
game of the round at random (a resignation or an agreed draw), and one
player withdraws mid-event. Prints each round; exits 1 on a difference.
"""

import argparse
import datetime
import random
import sys
import tempfile
from pathlib import Path

from py4swiss.engines import DutchEngine
from py4swiss.trf import TrfParser

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_server import Server, drop_schema, scratch_database  # noqa: E402

POINTS = {"1": 10, "=": 5, "0": 0, "+": 10, "-": 0, "U": 10, "H": 5, "Z": 0, "F": 10, " ": 0}
# TRF-2016: a player's rounds from column 90, ten characters each (two
# blanks, the opponent in 92-95, the colour at 97, the result at 99); the
# points in columns 81-84. Indices from 0.
ROUNDS_AT, ROUND_WIDTH, POINTS_AT = 89, 10, 80


def cut(report, round_number):
    """The report as it stood when `round_number` was paired."""
    lines = []
    for line in report.splitlines():
        if not line.startswith("001"):
            lines.append(line)
            continue
        keep = round_number - 1
        entry = line[ROUNDS_AT + keep * ROUND_WIDTH:ROUNDS_AT + (keep + 1) * ROUND_WIDTH]
        if entry.strip().endswith("Z") and entry[2:6].strip() in ("", "0000"):
            keep += 1  # an absence written before the pairing
        line = line[:ROUNDS_AT + keep * ROUND_WIDTH].rstrip()
        entries = [line[ROUNDS_AT + i * ROUND_WIDTH:ROUNDS_AT + (i + 1) * ROUND_WIDTH] for i in range(keep)]
        points = sum(POINTS[e[-1]] for e in entries if len(e) == ROUND_WIDTH)
        line = f"{line[:POINTS_AT]}{points // 10:>2}.{points % 10}{line[POINTS_AT + 4:]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def py4swiss_pairing(text, work):
    path = Path(work) / "round.trf"
    path.write_text(text)
    return [(p.white, p.black) for p in DutchEngine.generate_pairings(TrfParser.parse(path))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", default="sqlite")
    parser.add_argument("--players", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as work:
        url, schema = scratch_database(args.database, work, "swiss_live")
        server = Server(url, ["--no-rate-limits"])
        try:
            server.start()
            return play(server, args, rng, work)
        finally:
            server.stop()
            drop_schema(args.database, schema)


def play(server, args, rng, work):
    names = [f"player{i:02}" for i in range(1, args.players + 1)]
    tokens = {name: server.sign_up(name) for name in names}
    status, created = server.call("POST", "/tournaments", tokens[names[0]], {
        "name": "Live Swiss", "rules": "standard", "days_per_move": 3, "format": "swiss",
        "capacity": args.players, "rounds": args.rounds,
        "signup_deadline": (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=7)).isoformat()})
    assert status == 201, created
    tid = created["id"]
    for name in names:
        status, answer = server.call("POST", f"/tournaments/{tid}/join", tokens[name])
        assert status == 200, answer
    withdrawn = None
    differences = 0
    for round_number in range(1, args.rounds + 1):
        status, view = server.call("GET", f"/tournaments/{tid}")
        assert status == 200 and view["round"] == round_number, view
        status, report = server.call("GET", f"/tournaments/{tid}/report.trf")
        assert status == 200, report
        number = {line[14:47].strip(): int(line[4:8]) for line in report.splitlines() if line.startswith("001")}
        games = [g for g in view["games"] if g["round"] == round_number]
        ours = [(number[g["white"]["username"]], number[g["black"]["username"]]) for g in games]
        ours += [(number[b["player"]["username"]], 0) for b in view["byes"]
                 if b["round"] == round_number and b["kind"] == "pairing"]
        theirs = py4swiss_pairing(cut(report, round_number), work)
        same = ours == theirs
        differences += not same
        print(f"round {round_number}: {len(games)} games, {len(ours) - len(games)} bye; "
              f"py4swiss {'agrees' if same else 'differs'}", flush=True)
        if not same:
            print(f"  kingpost {ours}\n  py4swiss {theirs}", flush=True)
        if round_number == 2:
            withdrawn = rng.choice(names[1:])
            status, answer = server.call("POST", f"/tournaments/{tid}/leave", tokens[withdrawn])
            assert status == 200, answer
            print(f"  {withdrawn} withdraws", flush=True)
        for game in games:
            white, black = game["white"]["username"], game["black"]["username"]
            ending = rng.choice(["white resigns", "black resigns", "draw"])
            status, now = server.call("GET", f"/games/{game['game_id']}", tokens[white])
            if now["status"] != "started":
                continue  # the withdrawn player's, resigned
            if ending == "draw":
                steps = [(white, "draw-offer"), (black, "draw-offer/accept")]
            else:
                steps = [(white if ending == "white resigns" else black, "resign")]
            for who, what in steps:
                status, answer = server.call("POST", f"/games/{game['game_id']}/{what}", tokens[who])
                assert status == 200, answer
    status, view = server.call("GET", f"/tournaments/{tid}")
    assert view["status"] == "finished", view["status"]
    winners = ", ".join(w["username"] for w in view["winners"])
    print(f"finished: won by {winners}; {differences} rounds differ", flush=True)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
