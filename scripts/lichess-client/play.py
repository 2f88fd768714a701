"""Two berserk clients (the Python client of lichess's API, from PyPI,
unchanged) play a correspondence game on kingpost through its
lichess-compatible surface, only their base URL changed: each follows its
event stream, one challenges, the other declines that challenge and accepts
the next, both follow the game's stream and play their moves when it is
their turn (castling as lichess writes it, `e1g1`), a draw is offered and
declined, and White mates. Every answer and line read is checked against
lichess's own schemas (lichess-schemas/, copied from lichess's published API
description); the game is then exported as PGN through kingpost's own API.

    python play.py <base url, e.g. http://127.0.0.1:18768>

Run by scripts/lichess-client/run.sh, which starts the server.
"""

import io
import queue
import sys
import threading

import berserk
import chess
import chess.pgn

from common import TIMEOUT, call, client, conforms, follow, next_of, personal_token, raw

# 1.e4 f6 2.Bc4 a6 3.Nh3 a5 4.O-O g5 5.Qh5#, White castling on move 4.
MOVES = ["e2e4", "f7f6", "f1c4", "a7a6", "g1h3", "a6a5", "e1g1", "g7g5", "d1h5"]

def event_of(stream, kind):
    """The next event of `kind` on an event stream, checked."""
    while True:
        event = next_of(stream, kind)
        schema = {
            "gameStart": "GameStartEvent",
            "gameFinish": "GameFinishEvent",
            "challenge": "ChallengeEvent",
            "challengeDeclined": "ChallengeDeclinedEvent",
        }[event["type"]]
        conforms(event, schema)
        if event["type"] == kind:
            return event


def play_side(api, game_id, color, moves_done, result):
    """Plays one side (see `side`), a failure kept in `result` for the main
    thread to report."""
    try:
        side(api, game_id, color, moves_done, result)
    except BaseException as failure:  # noqa: BLE001 (SystemExit included)
        result[color] = {"failure": repr(failure)}


def side(api, game_id, color, moves_done, result):
    """Follows the game's stream and plays `color`'s moves on its turn;
    White offers a draw before 3.Nh3, which Black declines."""
    states = queue.Queue()
    follow(api.board.stream_game_state(game_id), states)
    full = next_of(states, "gameFull")
    if full["type"] != "gameFull":
        sys.exit(f"a game stream begins with gameFull, not {full['type']}")
    conforms(raw(full["state"]), "GameStateEvent")
    full = raw(full)
    full["state"] = raw(full["state"])
    conforms(full, "GameFullEvent")
    state = full["state"]
    mine = 0 if color == "white" else 1
    declined = False
    # Lines arrive for the offer and the move: a side moves once a ply.
    moved_at = -1
    while True:
        played = state["moves"].split() if state["moves"] else []
        if state["status"] != "started":
            if color == "black" and not declined:
                sys.exit("black never saw White's draw offer (`wdraw`)")
            result[color] = state
            return
        offered = state.get("bdraw" if color == "white" else "wdraw")
        if offered and not declined:
            api.board.decline_draw(game_id)
            declined = True
        elif len(played) % 2 == mine and len(played) < len(MOVES) and len(played) > moved_at:
            moved_at = len(played)
            move = MOVES[len(played)]
            if len(played) == 4:
                # Offered on White's own turn: it stands until Black moves.
                api.board.offer_draw(game_id)
            api.board.make_move(game_id, move)
            moves_done.append((color, move))
        state = raw(next_of(states, "gameState"))
        if state["type"] != "gameState":
            continue
        conforms(state, "GameStateEvent")


def main():
    base = sys.argv[1]
    white_token = personal_token(base, "berserk_white")
    white = client(base, white_token)
    black = client(base, personal_token(base, "berserk_black"))

    # berserk turns the account's times into datetimes: the schema is
    # checked on the answer as sent.
    conforms(call(base, "GET", "/api/account", token=white_token), "UserExtended")
    if white.account.get()["username"] != "berserk_white":
        sys.exit("/api/account answered another account")

    white_events, black_events = queue.Queue(), queue.Queue()
    follow(white.board.stream_incoming_events(), white_events)
    follow(black.board.stream_incoming_events(), black_events)

    # A Chess960 challenge, declined: its challenger hears of it.
    first = white.challenges.create("berserk_black", rated=False, days=3, variant="chess960")
    conforms(first, "ChallengeJson")
    offered = event_of(black_events, "challenge")["challenge"]
    if offered["id"] != first["id"] or offered["variant"]["key"] != "chess960":
        sys.exit(f"black was told of {offered}, not of {first}")
    black.challenges.decline(first["id"])
    event_of(white_events, "challengeDeclined")

    # The game: White is the challenger's colour.
    second = white.challenges.create("berserk_black", rated=True, days=3, color="white")
    conforms(second, "ChallengeJson")
    offered = event_of(black_events, "challenge")["challenge"]
    if offered["id"] != second["id"] or offered["timeControl"] != {"type": "correspondence", "daysPerTurn": 3}:
        sys.exit(f"black was told of {offered}")
    black.challenges.accept(second["id"])
    started = event_of(white_events, "gameStart")["game"]
    game_id = started["gameId"]
    if event_of(black_events, "gameStart")["game"]["gameId"] != game_id:
        sys.exit("the players were told of different games")
    if started["color"] != "white" or not started["isMyTurn"]:
        sys.exit(f"white's gameStart: {started}")

    moves_done, result = [], {}
    sides = [
        threading.Thread(target=play_side, args=(white, game_id, "white", moves_done, result)),
        threading.Thread(target=play_side, args=(black, game_id, "black", moves_done, result)),
    ]
    for side in sides:
        side.start()
    for side in sides:
        side.join(TIMEOUT * 4)
    if set(result) != {"white", "black"}:
        sys.exit(f"the game did not end for both: {result}, moves {moves_done}")
    for color, state in result.items():
        if "failure" in state:
            sys.exit(f"{color} failed: {state['failure']}")
        if (state["status"], state.get("winner"), state["moves"]) != ("mate", "white", " ".join(MOVES)):
            sys.exit(f"{color} saw the game end as {state}")
    finished = event_of(white_events, "gameFinish")["game"]
    if finished["status"]["name"] != "mate" or finished.get("winner") != "white":
        sys.exit(f"white's gameFinish: {finished}")

    # The game, read back through kingpost's own API as PGN.
    pgn = call(base, "GET", f"/api/v1/games/{game_id}/pgn")
    game = chess.pgn.read_game(io.StringIO(pgn))
    board = game.end().board()
    if not board.is_checkmate() or game.headers["Result"] != "1-0":
        sys.exit(f"the exported PGN does not end in White's mate:\n{pgn}")
    if [m.uci() for m in game.mainline_moves()] != MOVES:
        sys.exit(f"the exported PGN's moves differ:\n{pgn}")
    print(f"lichess client: berserk {berserk.__version__} played game {game_id} to mate "
          f"({len(MOVES)} plies), every answer as lichess's schemas describe it")


if __name__ == "__main__":
    main()
