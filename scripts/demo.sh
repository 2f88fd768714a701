#!/usr/bin/env bash
# A short Teleporting Kings game played with curl against a fresh server on
# a temporary SQLite file, printing each request and answer.
#   bash scripts/demo.sh            (builds the debug binary if needed)
#   KINGPOST=target/release/kingpost bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."

KINGPOST=${KINGPOST:-target/debug/kingpost}
[ -x "$KINGPOST" ] || cargo build -q --bin kingpost
PORT=${PORT:-18765}
BASE="http://127.0.0.1:$PORT/api/v1"
. scripts/serve.sh
serve_fresh demo
wait_until_served

# call METHOD PATH [TOKEN] [JSON]: prints the exchange, leaves the body in $BODY.
call() {
    local method=$1 path=$2 token=${3:-} data=${4:-}
    local args=(-s -X "$method" "$BASE$path" -H 'content-type: application/json')
    [ -n "$token" ] && args+=(-H "Authorization: Bearer $token")
    [ -n "$data" ] && args+=(-d "$data")
    echo "> $method $path ${data}"
    BODY=$(curl "${args[@]}")
    echo "< $BODY" | cut -c1-300
    echo
}
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" <<< "$BODY" | head -n1; }

for player in alice bob; do
    call POST /accounts "" "{\"username\":\"$player\",\"password\":\"correct horse battery staple\"}"
    call POST /auth/token "" "{\"grant_type\":\"password\",\"username\":\"$player\",\"password\":\"correct horse battery staple\"}"
    declare "TOKEN_$player=$(field access_token)"
done

call POST /challenges "$TOKEN_alice" '{"rules":"teleporting-kings","days_per_move":3,"color":"white","opponent":"bob"}'
CHALLENGE=$(field id)
call POST "/challenges/$CHALLENGE/accept" "$TOKEN_bob"
GAME=$(field id)

# Black teleports its king from e8 to c6 (UCI e8c6, SAN Kc6), then mates.
ply=0
for move in f3 e6 a3 e8c6 g4 Qh4; do
    if (( ply % 2 == 0 )); then token=$TOKEN_alice; else token=$TOKEN_bob; fi
    call POST "/games/$GAME/moves" "$token" "{\"move\":\"$move\",\"ply\":$ply}"
    ply=$((ply + 1))
done
call GET "/games/$GAME" "$TOKEN_alice"
grep -q '"termination":"checkmate"' <<< "$BODY" || { echo "demo: the game did not end in checkmate" >&2; exit 1; }
echo "> GET /games/$GAME/pgn"
curl -s "$BASE/games/$GAME/pgn"
echo
echo "demo: checkmate after $ply plies"
