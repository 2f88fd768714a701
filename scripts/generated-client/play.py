"""A whole game through a client generated from openapi/openapi.json by
openapi-python-client, with no hand edits: two accounts sign up and sign in,
one challenges, the other accepts, they play to checkmate (Black waiting for
White's moves with long polls, `If-None-Match` and `wait`), the PGN is read
back, imported as JSON and exported again, and Black's events are read.
Run by
scripts/generated-client/run.sh, which generates the client fresh and
starts the server.

    python play.py <base url, e.g. http://127.0.0.1:18767>
"""

import json
import sys
import threading

from kingpost_client import AuthenticatedClient, Client
from kingpost_client.api.accounts import create_account
from kingpost_client.api.auth import create_session_token
from kingpost_client.api.challenges import accept_challenge, create_challenge
from kingpost_client.api.events import stream_events
from kingpost_client.api.games import get_game, play_move
from kingpost_client.api.pgn import create_import, export_game_pgn
from kingpost_client.models import (
    AccountView,
    ChallengeView,
    ColorChoice,
    CreateAccountRequest,
    CreateChallengeRequest,
    DaysPerMove,
    GameStatus,
    GameView,
    ImportReport,
    ImportRequest,
    MoveAnswer,
    MoveRequest,
    PasswordGrant,
    PasswordGrantRequest,
    RuleKey,
    TokenResponse,
)

PASSWORD = "correct horse battery staple"


def expect(value, kind):
    """The generated calls answer the declared model, or a Problem."""
    if not isinstance(value, kind):
        sys.exit(f"expected a {kind.__name__}, got {value!r}")
    return value


def signed_in(base, username):
    anonymous = Client(base_url=base)
    expect(
        create_account.sync(client=anonymous, body=CreateAccountRequest(username=username, password=PASSWORD)),
        AccountView,
    )
    grant = PasswordGrantRequest(grant_type=PasswordGrant.PASSWORD, username=username, password=PASSWORD)
    session = expect(create_session_token.sync(client=anonymous, body=grant), TokenResponse)
    return AuthenticatedClient(base_url=base, token=session.access_token)


def main():
    base = sys.argv[1]  # the spec's paths start with /api/v1
    white, black = signed_in(base, "gen_white"), signed_in(base, "gen_black")

    challenge = expect(
        create_challenge.sync(
            client=white,
            body=CreateChallengeRequest(rules=RuleKey.STANDARD, days_per_move=DaysPerMove.VALUE_3, color=ColorChoice.WHITE, opponent="gen_black"),
        ),
        ChallengeView,
    )
    game = expect(accept_challenge.sync(challenge.id, client=black), GameView)

    # The fool's mate, each move chosen from the server's legal moves; a
    # move's answer carries the state and the moves it played.
    fools_mate = ["f3", "e5", "g4", "Qh4#"]
    state, sans = game, [m.san for m in game.moves]
    for ply, san in enumerate(fools_mate):
        player = white if ply % 2 == 0 else black
        legal = {m.san: m.uci for m in state.legal_moves}
        if san not in legal:
            sys.exit(f"{san} is not among the legal moves {sorted(legal)}")
        poll = long_poll(game.id, black) if player is white else None
        state = expect(play_move.sync(game.id, client=player, body=MoveRequest(move=legal[san], ply=state.ply)), MoveAnswer)
        sans += [m.san for m in state.played]
        if poll is not None:
            woken = poll()
            if woken.ply != state.ply:
                sys.exit(f"Black's long poll woke at ply {woken.ply}, not {state.ply}")

    game = expect(get_game.sync(game.id, client=white), GameView)
    if sans != fools_mate or [m.san for m in game.moves] != sans:
        sys.exit(f"moves played {sans}, moves read {[m.san for m in game.moves]}")
    if game.status != GameStatus.FINISHED or game.termination != "checkmate" or game.result != "0-1":
        sys.exit(f"the game should be over by checkmate, 0-1: {game.status} {game.termination} {game.result}")

    # Black's events, read as the log holds them (`follow=False` ends the
    # stream, which the generated call reads whole).
    events = stream_events.sync(client=black, since=0, follow=False)
    kinds = [json.loads(line)["type"] for line in events.splitlines() if line.strip()]
    if kinds[:2] != ["challenge_received", "game_started"] or kinds[-1] != "game_finished":
        sys.exit(f"Black's events: {kinds}")

    # PGN is offered as text as well: the generated call returns a str.
    pgn = export_game_pgn.sync(game.id, client=white)
    if not isinstance(pgn, str) or "Qh4#" not in pgn or '[Result "0-1"]' not in pgn:
        sys.exit(f"unexpected PGN: {pgn!r}")

    # Imported as JSON for study, and exported again: the same moves.
    report = expect(create_import.sync(client=white, body=ImportRequest(pgn=pgn), collection="generated"), ImportReport)
    if (report.read, report.imported, report.rejected) != (1, 1, 0):
        sys.exit(f"the import reported {report}")
    again = export_game_pgn.sync(report.games[0].id, client=white)
    if not isinstance(again, str) or "Qh4#" not in again or '[Result "0-1"]' not in again:
        sys.exit(f"the imported game exports as {again!r}")
    print(f"generated client: game {game.id} over by checkmate after {game.ply} plies, Black woken by "
          f"long polls; PGN read back, imported as {report.games[0].id} and exported again")


def long_poll(game_id, client):
    """Starts a long poll of `client` on the game as it stands (its ETag as
    `If-None-Match`); the function returned waits for the game it woke with."""
    current = get_game.sync_detailed(game_id, client=client)
    etag = current.headers["etag"]
    woken = {}

    def wait():
        woken["answer"] = get_game.sync_detailed(game_id, client=client, wait=30, if_none_match=etag)

    thread = threading.Thread(target=wait)
    thread.start()

    def result():
        thread.join(40)
        answer = woken.get("answer")
        if answer is None or answer.status_code != 200:
            sys.exit(f"the long poll answered {answer and answer.status_code}")
        return expect(answer.parsed, GameView)

    return result


if __name__ == "__main__":
    main()
