"""Where kingpost accepts a game of a PGN edge-case file, python-chess
reaches the same position after the same number of plies.

    python scripts/check_pgn_edge.py KINGPOST DIR

Runs `KINGPOST pgn check FILE --fens OUT` on every `.pgn` file of DIR and
replays each accepted game with python-chess (standard and Chess960 games;
python-chess knows none of the kingpost variants). Files are decoded as
kingpost decodes them: UTF-8 without byte-order marks, else Windows-1252.
"""

import io
import logging
import pathlib
import subprocess
import sys
import tempfile

import chess
import chess.pgn


def python_chess_games(path):
    raw = path.read_bytes().replace(b"\xef\xbb\xbf", b"")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("cp1252")
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def kingpost_finals(kingpost, path):
    with tempfile.NamedTemporaryFile(suffix=".tsv") as out:
        subprocess.run(
            [kingpost, "pgn", "check", str(path), "--fens", out.name],
            check=True,
            capture_output=True,
        )
        finals = {}
        for line in pathlib.Path(out.name).read_text().splitlines():
            index, plies, fen = line.split("\t")
            finals[int(index)] = (int(plies), fen)
        return finals


def same_position(board, fen):
    """Our FEN against python-chess's, castling in either notation."""
    return fen in (board.fen(), board.shredder_fen(), board.fen(en_passant="fen"))


def main():
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    kingpost, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    compared = 0
    failures = []
    for path in sorted(directory.glob("*.pgn")):
        finals = kingpost_finals(kingpost, path)
        games = python_chess_games(path)
        for index, (plies, fen) in finals.items():
            if index > len(games):
                continue  # python-chess merged games that kingpost keeps apart
            game = games[index - 1]
            try:
                board = game.board()
            except ValueError:
                continue  # a variant python-chess does not know
            moves = list(game.mainline_moves())
            if len(moves) < plies:
                failures.append(f"{path.name} game {index}: python-chess read {len(moves)} plies, kingpost {plies}")
                continue
            for move in moves[:plies]:
                board.push(move)
            compared += 1
            if not same_position(board, fen):
                failures.append(f"{path.name} game {index}: kingpost {fen}, python-chess {board.fen()}")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"python-chess: {compared} edge-case games end where kingpost says")


if __name__ == "__main__":
    main()
