#!/usr/bin/env bash
# Two berserk clients (lichess's Python client, from PyPI) play a game on a
# live `kingpost serve` through the lichess-compatible surface; see play.py.
#   bash scripts/lichess-client/run.sh     (needs .venv with berserk, chess,
#                                           jsonschema and pyyaml)
set -euo pipefail
cd "$(dirname "$0")/../.."

KINGPOST=${KINGPOST:-target/debug/kingpost}
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$KINGPOST" ] || cargo build -q --bin kingpost
PORT=${PORT:-18768}
. scripts/serve.sh
serve_fresh lichess
wait_until_served
"$PYTHON" scripts/lichess-client/play.py "http://127.0.0.1:$PORT" || { tail -n 30 "$WORK/server.log"; exit 1; }
