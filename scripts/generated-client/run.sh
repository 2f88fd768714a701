#!/usr/bin/env bash
# Generates a Python client from openapi/openapi.json with openapi-python-client
# (fresh each run, never committed) and has it play a whole game against a
# live `kingpost serve`: a spec change that breaks generated clients fails here.
#   bash scripts/generated-client/run.sh     (needs .venv with openapi-python-client)
set -euo pipefail
cd "$(dirname "$0")/../.."

KINGPOST=${KINGPOST:-target/debug/kingpost}
PYTHON=${PYTHON:-.venv/bin/python}
GENERATOR=${GENERATOR:-.venv/bin/openapi-python-client}
[ -x "$KINGPOST" ] || cargo build -q --bin kingpost
PORT=${PORT:-18767}
. scripts/serve.sh
serve_fresh client

# ruff (beside the generator) formats the output; any warning about the
# spec (an operation or answer left out) fails the run.
PATH="$(cd "$(dirname "$GENERATOR")" && pwd):$PATH" "$GENERATOR" generate --path openapi/openapi.json --meta none \
    --output-path "$WORK/kingpost_client" > "$WORK/generate.log" 2>&1 \
    || { cat "$WORK/generate.log"; exit 1; }
if grep -qi "warning" "$WORK/generate.log"; then
    echo "openapi-python-client warned:"; cat "$WORK/generate.log"; exit 1
fi
wait_until_served
PYTHONPATH="$WORK" "$PYTHON" scripts/generated-client/play.py "http://127.0.0.1:$PORT"
