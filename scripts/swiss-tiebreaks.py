"""Records FIDE's own tie-breaks for simulated Swiss tournaments: runs the
TieBreakServer of FIDE's Technical Commission (an independent
implementation of the Tie-Break Regulations, C.07) on each TRF file of a
directory made by `swiss-simulate.py`, and writes its answers beside it,
for kingpost's pairing crate to be checked against (`pairing/tests/
swiss_tiebreaks.rs`):

- `<t>.tiebreaks.tsv`: Buchholz, Buchholz cut 1, Sonneborn-Berger,
  progressive score and direct encounter, in that order;
- `<t>.tiebreaks-de.tsv`: the direct encounter first, so that it decides.

Each with every player's rank. The program is not on PyPI: give a checkout
of github.com/TEC-FIDE/TieBreakServer (Python 3.10+).

    python3 scripts/swiss-tiebreaks.py --server DIR RECORDS_DIR
"""

import argparse
import subprocess
import sys
from pathlib import Path

ORDERS = {
    "tiebreaks.tsv": ["BH", "BH/C1", "SB", "PS", "DE"],
    "tiebreaks-de.tsv": ["DE", "BH/C1", "BH", "SB", "PS"],
}


def rounds_played(trf: Path) -> int:
    """The rounds on the players' lines: a tournament a round the rules
    could not pair ended before the rounds its header planned."""
    most = 0
    for line in trf.read_text().splitlines():
        if not line.startswith("001"):
            continue
        body = line[91:]
        count = 0
        while body[10 * count : 10 * count + 8].strip():
            count += 1
        most = max(most, count)
    return most


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, type=Path, help="a TieBreakServer checkout")
    parser.add_argument("records", type=Path, help="a directory of simulated tournaments")
    args = parser.parse_args()
    checker = args.server / "tiebreakchecker.py"
    files = sorted(args.records.glob("*.trf"))
    for done, trf in enumerate(files, 1):
        for suffix, order in ORDERS.items():
            answer = subprocess.run(
                [sys.executable, str(checker), "-c", "-s", "-i", str(trf), "-o", "-",
                 "-n", str(rounds_played(trf)), "-d", "T", "-t", "PTS", *order],
                capture_output=True, text=True, check=False,
            ).stdout
            # It exits 1 when the ranks it computes differ from the file's
            # own (the simulation's order): the answer is what is kept.
            if not answer.startswith("StartNo\t"):
                sys.exit(f"{trf}: TieBreakServer answered\n{answer}")
            trf.with_suffix("." + suffix).write_text(answer)
        print(f"{done}/{len(files)}: {trf.name}", flush=True)


if __name__ == "__main__":
    main()
