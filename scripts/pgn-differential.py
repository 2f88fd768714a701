"""PGN written by python-chess goes through kingpost and comes out as the
same games: imported over HTTP into a live `kingpost serve`, exported game by
game, and read back by python-chess (and the standard games by pgn-extract).

    python scripts/pgn-differential.py --kingpost target/debug/kingpost --games 2000 \
        --files core/tests/data/annotated

The file holds standard and Chess960 games with comments (before the first
move, after moves, at the start of variations, over several lines), NAGs,
nested variations, `[%clk]` and `[%eval]` commands, names in several scripts,
and CRLF line ends in part of it; games end where python-chess's rules end
them. Checked: every game is read and imported (none refused, none
shortened, no variation cut); each export is, to python-chess, the same game
as the file: the same mainline, variations, comments and NAGs, final
position, result, players, event and date, and keeps `Variant "Chess960"`;
pgn-extract reads every standard export without a complaint.

Then the same check on annotated files written elsewhere (`--files`): a SCID
export, a lichess study, a ChessBase-style fragment from a FEN, an engine's
annotation; each imported without a warning and exported as the same game.
"""

import argparse
import io
import json
import logging
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import chess
import chess.pgn

NAMES = ["Réti, Richard", "Nimzowitsch, Aron", "Капабланка, Хосе", "大山康晴", "Ødegaard, Åse", "O'Kelly", "Smith"]


COMMENTS = ["or this", "a thought {not nested", "Überlegung: ±", "two\nlines", "  spaced  ", "[%eval #-3]"]


def extend_line(rng, node, board, depth):
    """Plays a few random moves after `node`, annotated, some with a
    variation of their own."""
    for _ in range(rng.randrange(0, 6)):
        moves = list(board.legal_moves)
        if not moves:
            return
        move = rng.choice(moves)
        if depth < 3 and rng.random() < 0.15 and len(moves) > 1:
            alternative = rng.choice([m for m in moves if m != move])
            side = node.add_variation(alternative)
            if rng.random() < 0.5:
                side.starting_comment = rng.choice(COMMENTS)
            after = board.copy()
            after.push(alternative)
            extend_line(rng, side, after, depth + 1)
        node = node.add_main_variation(move)
        board.push(move)
        if rng.random() < 0.2:
            node.comment = rng.choice(COMMENTS)
        if rng.random() < 0.2:
            node.nags.add(rng.choice([1, 2, 3, 4, 5, 6, 10, 13, 14, 18, 146]))


def random_game(rng, index):
    chess960 = index % 3 == 1
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    game = chess.pgn.Game()
    game.headers["Event"] = f"Differential {index} “quoted”"
    game.headers["Site"] = "python-chess"
    game.headers["Date"] = f"19{rng.randrange(10, 99)}.{rng.randrange(1, 13):02}.{rng.randrange(1, 29):02}"
    game.headers["Round"] = str(index)
    game.headers["White"] = rng.choice(NAMES)
    game.headers["Black"] = rng.choice(NAMES)
    game.headers["WhiteElo"] = str(rng.randrange(1200, 2800))
    game.headers["ECO"] = f"{rng.choice('ABCDE')}{rng.randrange(100):02}"
    if chess960:
        game.setup(board)
        game.headers["Variant"] = "Chess960"
    node = game
    for ply in range(rng.randrange(1, 160)):
        if board.is_game_over():
            break
        moves = list(board.legal_moves)
        move = rng.choice(moves)
        if rng.random() < 0.08 and len(moves) > 1:
            alternative = rng.choice([m for m in moves if m != move])
            side = node.add_variation(alternative)
            side.comment = "or this"
            if rng.random() < 0.3:
                side.starting_comment = "instead"
            after = board.copy()
            after.push(alternative)
            extend_line(rng, side, after, 1)
        node = node.add_main_variation(move)
        board.push(move)
        roll = rng.random()
        if roll < 0.1:
            node.comment = f"[%clk 0:{rng.randrange(60):02}:{rng.randrange(60):02}] a thought {{not nested"
        elif roll < 0.15:
            node.comment = f"[%eval {rng.uniform(-3, 3):.2f}]"
        if rng.random() < 0.05:
            node.nags.add(rng.choice([1, 2, 3, 4, 5, 6, 14, 18]))
    if rng.random() < 0.1:
        game.comment = "A study, annotated"
    outcome = board.outcome()
    game.headers["Result"] = outcome.result() if outcome else rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
    return game


def tree(node):
    """What python-chess holds of a game beside its tags: every line of
    moves with each move's starting comment, NAGs and comment."""
    return [
        (child.move.uci(), child.starting_comment, sorted(child.nags), child.comment, tree(child))
        for child in node.variations
    ]


def is_annotated(node):
    """Whether a move after `node` has a variation, a comment or a NAG."""
    return len(node.variations) > 1 or any(
        child.comment or child.starting_comment or child.nags or is_annotated(child) for child in node.variations
    )


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, token=None, body=None, content_type="application/json"):
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1{path}", data=data, method=method)
    request.add_header("Content-Type", content_type)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def read_all(text):
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def check_files(port, token, paths, failures):
    """Each annotated file written elsewhere comes back as the same game."""
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        [original] = read_all(text)
        status, body = call(port, "POST", "/imports", token, text.encode(), "application/x-chess-pgn")
        assert status == 200, body[:500]
        [entry] = json.loads(body)["games"]
        if entry["id"] is None or entry["warnings"] or entry["shortened"]:
            failures.append(f"{path}: {entry}")
            continue
        status, exported = call(port, "GET", f"/games/{entry['id']}/pgn", token)
        [back] = read_all(exported.decode("utf-8"))
        if (original.comment, tree(original)) != (back.comment, tree(back)):
            failures.append(f"{path}: annotations differ\n--- exported:\n{exported.decode()}")
        elif [m.uci() for m in original.mainline_moves()] != [m.uci() for m in back.mainline_moves()]:
            failures.append(f"{path}: moves differ")
    print(f"python-chess: {len(paths)} annotated files written elsewhere come back as the same games")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kingpost", default="target/debug/kingpost")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--files", help="a directory of annotated PGN files, one game each")
    args = parser.parse_args()
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    rng = random.Random(args.seed)

    games = [random_game(rng, i + 1) for i in range(args.games)]
    parts = []
    for i, game in enumerate(games):
        text = str(game) + "\n\n"
        parts.append(text.replace("\n", "\r\n") if i % 4 == 3 else text)
    source = "".join(parts).encode("utf-8")
    print(f"{len(games)} games written by python-chess ({len(source) / 1e6:.1f} MB)")

    work = tempfile.mkdtemp()
    port = free_port()
    server = subprocess.Popen(
        [args.kingpost, "serve", "--no-rate-limits", "--bind", f"127.0.0.1:{port}", "--database-url", f"{work}/differential.sqlite3"],
        stderr=subprocess.DEVNULL,
    )
    failures = []
    try:
        for _ in range(200):
            try:
                if call(port, "GET", "/variants")[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        password = "differential password"
        call(port, "POST", "/accounts", body={"username": "student", "password": password})
        status, session = call(port, "POST", "/auth/token", body={"grant_type": "password", "username": "student", "password": password})
        assert status == 200, session
        token = json.loads(session)["access_token"]

        status, body = call(port, "POST", "/imports", token, source, "application/x-chess-pgn")
        assert status == 200, body[:500]
        report = json.loads(body)
        counts = {k: report[k] for k in ("read", "imported", "duplicates", "shortened", "rejected")}
        print(f"kingpost's report: {counts}")
        if counts != {"read": len(games), "imported": len(games), "duplicates": 0, "shortened": 0, "rejected": 0}:
            bad = [g for g in report["games"] if g["error"] or g["shortened"]][:5]
            failures.append(f"report {counts}: {bad}")
        warned = [g for g in report["games"] if g["warnings"]]
        if warned:
            failures.append(f"{len(warned)} games with warnings: {warned[:3]}")

        exports = []
        started = time.monotonic()
        for entry in report["games"]:
            if entry["id"] is None:
                exports.append(None)
                continue
            status, body = call(port, "GET", f"/games/{entry['id']}/pgn", token)
            assert status == 200, body
            exports.append(body.decode("utf-8"))
            if len(exports) % 500 == 0:
                print(f"  {len(exports)} games exported ({time.monotonic() - started:.0f} s)")

        for index, (original, exported) in enumerate(zip(games, exports), start=1):
            if exported is None:
                continue
            [back] = read_all(exported)
            if back.errors:
                failures.append(f"game {index}: python-chess could not read the export: {back.errors}")
                continue
            want = [m.uci() for m in original.mainline_moves()]
            got = [m.uci() for m in back.mainline_moves()]
            if want != got:
                failures.append(f"game {index}: moves differ\n{exported}")
                continue
            # The file as python-chess reads it, against the export read so.
            [written] = read_all(str(original))
            if (written.comment, tree(written)) != (back.comment, tree(back)):
                failures.append(f"game {index}: annotations differ\n{written}\n--- exported:\n{exported}")
                continue
            if original.end().board().fen() != back.end().board().fen():
                failures.append(f"game {index}: final positions differ")
            for tag in ("Event", "Site", "Date", "Round", "White", "Black", "Result", "WhiteElo", "ECO"):
                if original.headers.get(tag) != back.headers.get(tag):
                    failures.append(f"game {index}: {tag} {original.headers.get(tag)!r} became {back.headers.get(tag)!r}")
            if original.headers.get("Variant") == "Chess960" and back.headers.get("Variant") != "Chess960":
                failures.append(f"game {index}: Variant {back.headers.get('Variant')!r}")
        annotated = sum(bool(g.comment) or is_annotated(g) for g in games)
        print(
            f"python-chess: {sum(e is not None for e in exports)} exports read back, same moves, annotations, "
            f"positions and tags ({annotated} games annotated)"
        )

        if args.files:
            paths = sorted(os.path.join(args.files, name) for name in os.listdir(args.files) if name.endswith(".pgn"))
            check_files(port, token, paths, failures)

        extract = shutil.which("pgn-extract") or "/usr/games/pgn-extract"
        standard = "".join(e for e, g in zip(exports, games) if e and "Variant" not in g.headers)
        with open(f"{work}/standard.pgn", "w") as handle:
            handle.write(standard)
        run = subprocess.run(
            [extract, "-s", "-o", f"{work}/extracted.pgn", f"{work}/standard.pgn"], capture_output=True, text=True
        )
        # Beyond its progress count ("Games: 1000"), anything on stderr is a complaint.
        complaints = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("Games: ")]
        if complaints:
            failures.append(f"pgn-extract complained: {complaints[:10]}")
        with open(f"{work}/extracted.pgn") as handle:
            kept = sum(line.startswith("[Event ") for line in handle)
        want = standard.count("[Event ")
        if kept != want:
            failures.append(f"pgn-extract kept {kept} of {want} standard games")
        print(f"pgn-extract: {kept} standard exports read without a complaint")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures[:20]:
        print(failure, file=sys.stderr)
    if failures:
        print(f"{len(failures)} differences", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
