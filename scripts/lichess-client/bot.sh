#!/usr/bin/env bash
# A BOT (berserk's `bots` client with python-chess driving Stockfish) plays
# a game on a live `kingpost serve` through lichess's Bot API; see bot.py.
#   bash scripts/lichess-client/bot.sh     (needs .venv with berserk, chess,
#                                           jsonschema and pyyaml, and
#                                           Debian's stockfish)
set -euo pipefail
cd "$(dirname "$0")/../.."

KINGPOST=${KINGPOST:-target/debug/kingpost}
PYTHON=${PYTHON:-.venv/bin/python}
STOCKFISH=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
[ -x "$KINGPOST" ] || cargo build -q --bin kingpost
PORT=${PORT:-18771}
. scripts/serve.sh
serve_fresh bot
wait_until_served
"$PYTHON" scripts/lichess-client/bot.py "http://127.0.0.1:$PORT" --stockfish "$STOCKFISH" || { tail -n 30 "$WORK/server.log"; exit 1; }
