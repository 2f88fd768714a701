"""Reads a PGN file with python-chess and checks that every game replays
without error and ends in the position kingpost says (one FEN a line).

    python3 scripts/check_pgn_with_python_chess.py games.pgn games.fens
"""

import sys

import chess.pgn


def main(pgn_path: str, fens_path: str) -> int:
    with open(fens_path, encoding="utf-8") as fens:
        expected = [line.strip() for line in fens if line.strip()]
    games = 0
    with open(pgn_path, encoding="utf-8") as pgn:
        while (game := chess.pgn.read_game(pgn)) is not None:
            if game.errors:
                print(f"game {games + 1}: python-chess reports {game.errors}", file=sys.stderr)
                return 1
            board = game.end().board()
            fields = board.fen(en_passant="legal").split(" ")
            fields[2] = board.castling_xfen()
            theirs = " ".join(fields)
            if theirs != expected[games]:
                print(f"game {games + 1}: python-chess {theirs!r}, kingpost {expected[games]!r}", file=sys.stderr)
                return 1
            games += 1
    if games != len(expected) or games == 0:
        print(f"read {games} games, expected {len(expected)}", file=sys.stderr)
        return 1
    print(f"python-chess: {games} games of {pgn_path} end where kingpost says")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
