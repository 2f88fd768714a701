# Sourced by the scripts that drive a live server. `serve_fresh NAME
# [ARGS...]` starts "$KINGPOST" serve on 127.0.0.1:$PORT with a fresh SQLite
# file in a temporary $WORK (its log in $WORK/server.log), stops it and
# removes $WORK on exit; `wait_until_served` waits until it answers.

serve_fresh() {
    local name=$1
    shift
    WORK=$(mktemp -d)
    "$KINGPOST" serve --bind "127.0.0.1:$PORT" --database-url "$WORK/$name.sqlite3" "$@" > "$WORK/server.log" 2>&1 &
    SERVER=$!
    trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
}

wait_until_served() {
    for _ in $(seq 100); do
        curl -sf "http://127.0.0.1:$PORT/api/v1/variants" > /dev/null && return 0
        sleep 0.1
    done
    echo "kingpost serve did not answer on port $PORT:" >&2
    cat "$WORK/server.log" >&2
    return 1
}
