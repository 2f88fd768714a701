"""A BOT built from berserk's `bots` client (lichess's Python client, from
PyPI, unchanged) and python-chess's UCI engine support, driving Stockfish,
plays a correspondence game on kingpost through lichess's Bot API, only its
base URL changed. It tests its token and upgrades a fresh account; a player
(berserk on the Board API) challenges it; the BOT accepts from its event
stream (and is online meanwhile, among the BOTs online), greets in the
game's chat, and plays from the game's stream until
the game ends. Half-way it is killed and started again: the new process
finds its game from the event stream's opening and goes on. The game is
then exported (lichess's `/game/export`) and read by python-chess. Every
answer and line read is checked against lichess's own schemas.

    python bot.py <base url> [--stockfish PATH]

Run by scripts/lichess-client/bot.sh, which starts the server. The same
file is the BOT's process: `python bot.py --bot <base url> <token> <engine>`.
"""

import io
import itertools
import queue
import random
import subprocess
import sys
import threading
import time

import berserk
import chess
import chess.engine
import chess.pgn

from common import TIMEOUT, call, client, conforms, follow, next_of, personal_token, raw

GREETING = "Good luck! I am an engine."
THANKS = "Thank you for the message."
# The BOT is killed once this many plies are played, then started again.
RESTART_AT = 12
# The player resigns a game that lasts longer than this.
MOST_PLIES = 300


# ---- the BOT: its own process, as a bot runs ----


def bot_main(base, token, engine_path):
    """Accepts every challenge, and plays every game it has, each on a
    thread of its own, until killed. Prints `moved <ply>` for each move."""
    bot = client(base, token)
    engine = chess.engine.SimpleEngine.popen_uci(engine_path)
    lock = threading.Lock()
    playing = set()
    for event in bot.bots.stream_incoming_events():
        kind = event["type"]
        if kind == "challenge":
            conforms(raw_event(event), "ChallengeEvent")
            bot.bots.accept_challenge(event["challenge"]["id"])
        elif kind == "gameStart":
            conforms(raw_event(event), "GameStartEvent")
            game_id = event["game"]["gameId"]
            if game_id not in playing:
                playing.add(game_id)
                threading.Thread(target=play_game, args=(bot, base, token, game_id, engine, lock), daemon=True).start()


def raw_event(event):
    """An event as sent: berserk turns a challenge's times into datetimes."""
    out = dict(event)
    if "challenge" in out and hasattr(out["challenge"].get("createdAt"), "timestamp"):
        out["challenge"] = dict(out["challenge"], createdAt=int(out["challenge"]["createdAt"].timestamp() * 1000))
    return out


def play_game(bot, base, token, game_id, engine, lock):
    """Follows a game's Bot API stream: greets once (the chat says whether it
    did before a restart), then plays Stockfish's move on each turn."""
    chat = call(base, "GET", f"/api/bot/game/{game_id}/chat", token=token)
    conforms(chat, "paths/api-bot-game-gameId-chat.yaml#/get/responses/200/content/application~1x-ndjson/schema")
    if not any(line["text"] == GREETING for line in chat):
        bot.bots.post_message(game_id, GREETING)
    stream = bot.bots.stream_game_state(game_id)
    full = next(stream)
    if full["type"] != "gameFull":
        sys.exit(f"a BOT's game stream begins with gameFull, not {full['type']}")
    full = raw(full)
    full["state"] = raw(full["state"])
    conforms(full, "GameFullEvent")
    me = "white" if full["white"].get("title") == "BOT" else "black"
    name = full[me]["name"]
    state = full["state"]
    for line in itertools.chain([state], stream):
        if line.get("type") == "chatLine":
            conforms(line, "ChatLineEvent")
            if line["username"] != name:
                bot.bots.post_message(game_id, THANKS)
            continue
        state = raw(line)
        conforms(state, "GameStateEvent")
        if state["status"] != "started":
            return
        board = chess.Board()
        for move in state["moves"].split():
            board.push_uci(move)
        if (board.turn == chess.WHITE) != (me == "white"):
            continue
        with lock:
            chosen = engine.play(board, chess.engine.Limit(depth=8)).move
        bot.bots.make_move(game_id, chosen.uci())
        print(f"moved {board.ply() + 1}", flush=True)


# ---- the player and the test ----


def start_bot(base, token, engine_path):
    """The BOT's process, and a queue of the plies it says it played."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--bot", base, token, engine_path],
        stdout=subprocess.PIPE,
        text=True,
    )
    plies = queue.Queue()

    def read():
        for line in process.stdout:
            plies.put(line.strip())
        plies.put(None)

    threading.Thread(target=read, daemon=True).start()
    return process, plies


def main(base, engine_path):
    bot_token = personal_token(base, "stockfish_bot", ("bot:play", "challenge:write"))
    tested = call(base, "POST", "/api/token/test", text=bot_token)
    conforms(tested, "paths/api-token-test.yaml#/post/responses/200/content/application~1json/schema")
    if "bot:play" not in tested[bot_token]["scopes"].split(","):
        sys.exit(f"the token test says: {tested}")
    bot = client(base, bot_token)
    bot.account.upgrade_to_bot()
    account = call(base, "GET", "/api/account", token=bot_token)
    conforms(account, "UserExtended")
    if account.get("title") != "BOT":
        sys.exit(f"upgraded, the account says {account}")

    player_token = personal_token(base, "patient_player")
    player = client(base, player_token)
    events = queue.Queue()
    follow(player.board.stream_incoming_events(), events)
    process, plies = start_bot(base, bot_token, engine_path)
    challenge = player.challenges.create("stockfish_bot", rated=False, days=3, color="white")
    conforms(challenge, "ChallengeJson")
    while (event := next_of(events, "gameStart"))["type"] != "gameStart":
        pass
    game_id = event["game"]["gameId"]

    # Its event stream open, the BOT is online, and listed among the BOTs.
    status = call(base, "GET", "/api/users/status?ids=stockfish_bot,patient_player")
    conforms(status, "paths/api-users-status.yaml#/get/responses/200/content/application~1json/schema")
    if (status[0].get("online"), status[0].get("title")) != (True, "BOT"):
        sys.exit(f"the BOT's status: {status}")
    online = call(base, "GET", "/api/bot/online")
    for user in online if isinstance(online, list) else [online]:
        conforms(user, "User")
    if (online if isinstance(online, dict) else {}).get("id") != "stockfish_bot":
        sys.exit(f"the BOTs online: {online}")
    playing = call(base, "GET", "/api/account/playing", token=bot_token)
    conforms(playing, "paths/api-account-playing.yaml#/get/responses/200/content/application~1json/schema")
    if [g["gameId"] for g in playing["nowPlaying"]] != [game_id]:
        sys.exit(f"the BOT's games now: {playing}")

    rng = random.Random(2026)
    states = queue.Queue()
    follow(player.board.stream_game_state(game_id), states)
    full = next_of(states, "gameFull")
    state = raw(full["state"])
    thanked = restarted = said = False
    while state["status"] == "started":
        board = chess.Board()
        for move in state["moves"].split():
            board.push_uci(move)
        if board.ply() >= 4 and not said:
            # Through kingpost's own API: the BOT reads it in its stream.
            call(base, "POST", f"/api/v1/games/{game_id}/messages", {"text": "Hello, engine"}, player_token)
            said = True
        if board.turn == chess.WHITE:
            if board.ply() >= MOST_PLIES:
                player.board.resign_game(game_id)
            else:
                player.board.make_move(game_id, rng.choice(list(board.legal_moves)).uci())
        if board.ply() >= RESTART_AT and not restarted:
            # Killed between two moves, as a host restarts: what the BOT
            # plays next is its new process's.
            process.kill()
            process.wait()
            process, plies = start_bot(base, bot_token, engine_path)
            restarted = True
        line = next_of(states, "gameState")
        while line.get("type") == "chatLine":
            conforms(line, "ChatLineEvent")
            thanked = thanked or (line["username"] == "stockfish_bot" and line["text"] == THANKS)
            line = next_of(states, "gameState")
        state = raw(line)
        conforms(state, "GameStateEvent")
    if not restarted:
        sys.exit(f"the game ended before the BOT was restarted: {state}")
    # The restarted process says what it played (its last line may follow
    # the game's end by a moment).
    try:
        after_restart = plies.get(timeout=5)
    except queue.Empty:
        after_restart = None
    process.kill()
    if not after_restart:
        sys.exit("the restarted BOT played no move: it did not find its game")
    if not thanked:
        sys.exit("the player never read the BOT's answer to its message in the game's stream")
    said = call(base, "GET", f"/api/v1/games/{game_id}/messages", token=player_token)["messages"]
    if [m["text"] for m in said if m["from"] == "stockfish_bot"][:1] != [GREETING]:
        sys.exit(f"the BOT's greeting is not the game's first message of it: {said}")

    pgn = player.games.export(game_id, as_pgn=True)
    game = chess.pgn.read_game(io.StringIO(pgn))
    moves = [m.uci() for m in game.mainline_moves()]
    if moves != state["moves"].split():
        sys.exit(f"the exported PGN's moves differ from the game's:\n{pgn}")
    print(
        f"BOT: berserk {berserk.__version__} and Stockfish played game {game_id} "
        f"({len(moves)} plies, {game.headers['Result']}, {state['status']}), restarted at ply "
        f"{RESTART_AT} and found its game again; every answer as lichess's schemas describe it"
    )


if __name__ == "__main__":
    if sys.argv[1] == "--bot":
        bot_main(*sys.argv[2:5])
    else:
        engine = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--stockfish" else "/usr/games/stockfish"
        started = time.monotonic()
        main(sys.argv[1], engine)
        print(f"  ({time.monotonic() - started:.1f} s)")
