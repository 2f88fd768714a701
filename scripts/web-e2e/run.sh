#!/usr/bin/env bash
# The web client at / played in Debian's Chromium, driven by Playwright,
# against a fresh `kingpost serve` on a temporary SQLite file.
# Screenshots of the boards land in target/web-e2e/.
#   bash scripts/web-e2e/run.sh   (needs node, npm and /usr/bin/chromium)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)

CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
[ -x "$CHROMIUM" ] || { echo "needs Chromium: apt-get install chromium" >&2; exit 1; }
npm ci --no-audit --no-fund --silent
node --test moves.test.mjs explorer.test.mjs clocks.test.mjs

if [ -z "${KINGPOST:-}" ]; then
    cargo build -q --manifest-path "$ROOT/Cargo.toml" --bin kingpost
    KINGPOST=$ROOT/target/debug/kingpost
fi
PORT=${PORT:-18766}
. "$ROOT/scripts/serve.sh"
# Each player's page comes "through a proxy" from an address of its own.
# A VAPID key turns Web Push on: the account page offers it.
KINGPOST_VAPID_PRIVATE_KEY=$("$KINGPOST" vapid-key | sed -n 's/^KINGPOST_VAPID_PRIVATE_KEY=//p')
export KINGPOST_VAPID_PRIVATE_KEY
serve_fresh web --trusted-proxy 127.0.0.1 --vapid-subject mailto:ops@kingpost.test
wait_until_served

mkdir -p "$ROOT/target/web-e2e"
KINGPOST_URL="http://127.0.0.1:$PORT" ARTEFACTS="$ROOT/target/web-e2e" CHROMIUM="$CHROMIUM" \
    node play.mjs || { cp "$WORK/server.log" "$ROOT/target/web-e2e/server.log"; echo "--- server log: target/web-e2e/server.log"; exit 1; }
