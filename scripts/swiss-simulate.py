"""Simulates Swiss tournaments paired by py4swiss's Dutch engine (an
independent implementation of FIDE's C.04.3, checked by its authors against
bbpPairings), and records each round as the pairing programs see it: the
TRF-2016 file before the round is paired, py4swiss's pairing of it, and
what py4swiss derives from the file for each player (score, colour
difference and preference, floats, opponents, byes). kingpost's pairing
crate is checked against these records (`pairing/tests/`).

Tournaments of 10 to 100 players over 5 to 11 rounds; results drawn at
random, weighted by rating; now and then a forfeit, a half-point bye asked
for (`H`), an absence (`Z`) and a withdrawal (absent from then on).

    pip install py4swiss
    python3 scripts/swiss-simulate.py --tournaments 200 --out DIR [--seed N]

Writes, for each tournament, DIR/<t>.trf (the tournament after its last
round) and DIR/<t>.json (for each round: py4swiss's pairing and what it
derived for each player; and, when a round could not be paired, the file
py4swiss refused as `unpairable`). The file a round was paired from is the final
one cut to the rounds before it, with the absences (`H`, `Z`) of that round
already on the players' lines; prints progress.
"""

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from py4swiss.engines import DutchEngine
from py4swiss.engines.common import PairingError
from py4swiss.engines.dutch.player import get_player_infos_from_trf
from py4swiss.trf import TrfParser

POINTS = {"1": 10, "=": 5, "0": 0, "+": 10, "-": 0, "U": 10, "H": 5, "Z": 0, "F": 10}


def player_line(number, rating, points, rank, rounds):
    """A `001` line in TRF-2016's columns; `rounds` as (opponent, colour, result)."""
    head = (f"001 {number:>4}      {f'Player {number:03}':<33} {rating:>4} {'':<3} {'':>11} {'':<10} "
            f"{points // 10:>2}.{points % 10} {rank:>4}")
    entries = "".join(f"  {opponent:>4} {colour} {result}" if opponent else f"  0000 - {result}"
                      for opponent, colour, result in rounds)
    return head + entries


def trf_text(name, players, rounds_total):
    points = {p["number"]: sum(POINTS[r[2]] for r in p["rounds"]) for p in players}
    order = sorted(players, key=lambda p: (-points[p["number"]], p["number"]))
    rank = {p["number"]: i + 1 for i, p in enumerate(order)}
    lines = [f"012 {name}"]
    lines += [player_line(p["number"], p["rating"], points[p["number"]], rank[p["number"]], p["rounds"])
              for p in players]
    lines.append(f"XXR {rounds_total}")
    return "\n".join(lines) + "\n"


def state_of(trf):
    """What py4swiss derives for each player to be paired."""
    out = []
    for p in get_player_infos_from_trf(trf):
        out.append({
            "id": p.id,
            "points": p.points,
            "colour_difference": p.color_difference,
            "colour_double": p.color_double,
            "preference": [p.color_preference.side.name.lower(), p.color_preference.strength.name.lower()],
            "float_1": p.float_1.name.lower(),
            "float_2": p.float_2.name.lower(),
            "opponents": sorted(p.opponents),
            "bye_received": p.bye_received,
            "top_scorer": p.top_scorer,
        })
    return out


def result_of(rng, white, black):
    """A game's result codes (white's, black's), weighted by rating."""
    if rng.random() < 0.03:
        return ("+", "-") if rng.random() < 0.5 else ("-", "+")
    expected = 1 / (1 + 10 ** ((black["rating"] - white["rating"]) / 400))
    draw = 0.3
    roll = rng.random()
    if roll < expected * (1 - draw):
        return "1", "0"
    if roll < expected * (1 - draw) + draw:
        return "=", "="
    return "0", "1"


def simulate(index, rng, out, work):
    n = rng.randint(10, 100)
    rounds_total = rng.randint(5, 11)
    ratings = sorted((rng.randint(1200, 2700) for _ in range(n)), reverse=True)
    players = [{"number": i + 1, "rating": r, "rounds": [], "withdrawn": False} for i, r in enumerate(ratings)]
    records = []
    unpairable = None
    for round_number in range(1, rounds_total + 1):
        # Absences decided before the round is paired: on the line already.
        for p in players:
            if not p["withdrawn"] and round_number > 1 and rng.random() < 0.01:
                p["withdrawn"] = True
            if p["withdrawn"]:
                p["rounds"].append((0, "-", "Z"))
            elif rng.random() < 0.02:
                p["rounds"].append((0, "-", rng.choice("HZ")))
        text = trf_text(f"Simulated {index}", players, rounds_total)
        path = Path(work) / "round.trf"
        path.write_text(text)
        trf = TrfParser.parse(path)
        try:
            pairs = [(pair.white, pair.black) for pair in DutchEngine.generate_pairings(trf)]
        except PairingError:
            unpairable = text
            # No pairing meets the absolute criteria (too few players left
            # for the rounds): the event ends, as an organiser would end it.
            for p in players:
                del p["rounds"][round_number - 1:]
            print(f"tournament {index}: round {round_number} cannot be paired; ended after "
                  f"{round_number - 1}", file=sys.stderr, flush=True)
            break
        records.append({"pairs": pairs, "players": state_of(trf)})
        by_number = {p["number"]: p for p in players}
        for white, black in pairs:
            if black == 0:
                by_number[white]["rounds"].append((0, "-", "U"))
                continue
            w, b = result_of(rng, by_number[white], by_number[black])
            by_number[white]["rounds"].append((black, "w", w))
            by_number[black]["rounds"].append((white, "b", b))
    (out / f"{index:03}.trf").write_text(trf_text(f"Simulated {index}", players, rounds_total))
    (out / f"{index:03}.json").write_text(json.dumps({"rounds": records, "unpairable": unpairable}, separators=(",", ":")) + "\n")
    return n, rounds_total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tournaments", type=int, default=200)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as work:
        for index in range(1, args.tournaments + 1):
            n, rounds = simulate(index, rng, out, work)
            print(f"tournament {index}/{args.tournaments}: {n} players, {rounds} rounds", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
