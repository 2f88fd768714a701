#!/usr/bin/env bash
# Generates a TypeScript client from openapi/openapi.json with
# @hey-api/openapi-ts (fresh each run, never committed), type-checks it and
# play.ts with tsc, and has it play a game against a live `kingpost serve`.
# Any warning of the generator or error of tsc fails the run.
#   bash scripts/ts-client/run.sh     (needs node and npm)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)

npm ci --no-audit --no-fund --silent
rm -rf gen dist
npx openapi-ts -i "$ROOT/openapi/openapi.json" -o gen -c @hey-api/client-fetch > generate.log 2>&1 \
    || { cat generate.log; exit 1; }
if grep -qi "warn" generate.log; then echo "openapi-ts warned:"; cat generate.log; exit 1; fi
rm -f generate.log
npx tsc -p tsconfig.json

if [ -z "${KINGPOST:-}" ]; then
    cargo build -q --manifest-path "$ROOT/Cargo.toml" --bin kingpost
    KINGPOST=$ROOT/target/debug/kingpost
fi
PORT=${PORT:-18769}
. "$ROOT/scripts/serve.sh"
serve_fresh ts
wait_until_served
node dist/play.js "http://127.0.0.1:$PORT" || { tail -n 30 "$WORK/server.log"; exit 1; }
