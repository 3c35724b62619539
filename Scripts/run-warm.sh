#!/usr/bin/env bash
# The main job on the embedded default: warm a worklist into a SQLite file.
# With OMDB_API_KEY set, it talks to the real OMDb over HTTPS. Without one, it starts
# the bundled OMDb stand-in on a free loopback port, points the job at it, and stops it after.
set -euo pipefail
db=${1:-out/filmcache.sqlite}
worklist=${2:-Data/watchlist.txt}
bin=$(swift build -c release --show-bin-path)
mkdir -p "$(dirname "$db")"

if [ -n "${OMDB_API_KEY:-}" ]; then
  exec "$bin/filmcache" warm --db "$db" "$worklist"
fi

log=$(mktemp)
OMDB_STANDIN_KEYS=demo "$bin/omdb-standin" --port 0 --corpus Data/corpus >"$log" 2>&1 &
standin=$!
trap 'kill $standin 2>/dev/null; wait $standin 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  port=$(sed -n 's/^omdb-standin listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")
  [ -n "$port" ] && break
  sleep 0.1
done
if [ -z "${port:-}" ]; then
  echo "the OMDb stand-in did not start:" >&2
  cat "$log" >&2
  exit 69
fi
echo "no OMDB_API_KEY set: warming from the bundled OMDb stand-in at 127.0.0.1:$port (corpus Data/corpus)"
status=0
OMDB_API_KEY=demo "$bin/filmcache" warm --db "$db" --base-url "http://127.0.0.1:$port/" --rate 0 "$worklist" || status=$?
served=$(curl -fsS "http://127.0.0.1:$port/__standin/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totalRequests"])' || echo "?")
echo "the stand-in served $served requests; films in $db: $(sqlite3 "$db" 'SELECT count(*) FROM films')"
exit $status
