#!/usr/bin/env bash
# Programs written elsewhere read kingpost's PGN: python-chess replays the
# standard and Chess960 games and reaches the same final positions;
# pgn-extract accepts the standard games without errors. Then the other way:
# the PGN edge-case files end where python-chess says, and a few thousand
# games written by python-chess come back from a live server's import and
# export as the same games.
#   PYTHON=.venv/bin/python bash scripts/interop-pgn.sh
# Needs python-chess (pip install chess) and pgn-extract (apt-get install pgn-extract).
set -euo pipefail
cd "$(dirname "$0")/.."

KINGPOST=${KINGPOST:-target/debug/kingpost}
PYTHON=${PYTHON:-python3}
[ -x "$KINGPOST" ] || cargo build -q --bin kingpost
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$KINGPOST" pgn sample --rules standard --games 300 --seed 11 --fens "$WORK/standard.fens" > "$WORK/standard.pgn"
"$KINGPOST" pgn sample --rules standard --start chess960 --games 300 --seed 12 --fens "$WORK/chess960.fens" > "$WORK/chess960.pgn"
"$PYTHON" scripts/check_pgn_with_python_chess.py "$WORK/standard.pgn" "$WORK/standard.fens"
"$PYTHON" scripts/check_pgn_with_python_chess.py "$WORK/chess960.pgn" "$WORK/chess960.fens"

# pgn-extract reads every game and writes them back; it reports what it
# cannot read on stderr.
PGN_EXTRACT=$(command -v pgn-extract || echo /usr/games/pgn-extract)
"$PGN_EXTRACT" -s -o "$WORK/extracted.pgn" "$WORK/standard.pgn" 2> "$WORK/pgn-extract.log" || true
if [ -s "$WORK/pgn-extract.log" ]; then
    echo "pgn-extract complained:" >&2
    cat "$WORK/pgn-extract.log" >&2
    exit 1
fi
extracted=$(grep -c '^\[Event ' "$WORK/extracted.pgn")
[ "$extracted" -eq 300 ] || { echo "pgn-extract kept $extracted of 300 games" >&2; exit 1; }
echo "pgn-extract: 300 standard games accepted"

"$PYTHON" scripts/check_pgn_edge.py "$KINGPOST" core/tests/data/pgn-edge
"$PYTHON" scripts/pgn-differential.py --kingpost "$KINGPOST" --games "${DIFFERENTIAL_GAMES:-2000}" \
    --files core/tests/data/annotated
