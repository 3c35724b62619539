#!/usr/bin/env bash
# Scripts/symbol-order.sh BINARY [OUT]: writes Packaging/filmcache.order (or OUT), the order in which
# the package's link (Scripts/build-deb.sh) lays out the functions of filmcache.
#
# BINARY is an unstripped filmcache built as the package builds it. Each command an operator runs
# (--version, warm, show, quota, plan, stats, posters, export, import, serve answering a few requests)
# runs under valgrind's callgrind against the OMDb stand-in; every function of the binary that ran goes
# into the file: --version's first, then what the warm adds, then show's, quota's and plan's, then the
# others'. lld puts them side by side at the start of .text, so the code a command runs sits in a few
# megabytes instead of being spread over thirty: the kernel maps 64 KB of file around each page fault,
# so spread code is code mapped, counted in RSS and faulted in at every start. A function not in the
# file (new since it was made) is placed after them: the link stays correct, only its layout ages.
# Traced against nginx's files too, as the bench's warm fetches them (32 in flight), the file put more
# of the warm's code first, and a warm peaked 1 MB higher (six pairs): the stand-in's runs are kept.
# Run it again after large changes (`make symbol-order`; the next `make deb` links with the new file);
# valgrind comes from `make package-deps`. Two runs do not give the same file to the line: which
# functions run depends on timing (which awaits suspend, which batches fill).
set -euo pipefail
fc=$(readlink -f "${1:?usage: Scripts/symbol-order.sh BINARY [OUT]}")
out=$(readlink -f "${2:-$(dirname "$0")/../Packaging/filmcache.order}")
cd "$(dirname "$0")/.."
# The stand-in built beside it (build-deb.sh builds both), else the release build's.
standin=$(dirname "$fc")/omdb-standin
if [ ! -x "$standin" ]; then
  swift build -c release --product omdb-standin >/dev/null
  standin=$(swift build -c release --show-bin-path)/omdb-standin
fi
command -v valgrind >/dev/null || { echo "symbol-order: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }

work=$(mktemp -d)
standin_pid=""
serve_pid=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  [ -n "$standin_pid" ] && kill "$standin_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A port the stand-in or serve names on its first line of output ($1: the log, $2: the pattern); serve
# under callgrind can take a minute to start.
port_of() {
  for _ in $(seq 1 3000); do
    port=$(sed -n "s/.*$2.*127\\.0\\.0\\.1:\\([0-9][0-9]*\\).*/\\1/p" "$1" | head -n 1)
    [ -n "$port" ] && { echo "$port"; return; }
    sleep 0.1
  done
  echo "symbol-order: no port in $1:" >&2
  cat "$1" >&2
  exit 1
}

# valgrind cannot read the DWARF of the Swift toolchain's builds: the copy traced keeps the symbols only.
strip --strip-debug -o "$work/filmcache" "$fc"
fc="$work/filmcache"

"$standin" generate --count 400 --seed 3 --out "$work/corpus" >/dev/null
OMDB_STANDIN_KEYS=demo "$standin" --port 0 --corpus "$work/corpus" --posters >"$work/standin.log" 2>&1 &
standin_pid=$!
base="http://127.0.0.1:$(port_of "$work/standin.log" listening)/"
ls "$work/corpus" | sed -n 's/^\(tt[0-9]*\)\.json$/\1/p' >"$work/ids.txt"
head -n 300 "$work/ids.txt" >"$work/worklist.txt"
id=$(head -n 1 "$work/ids.txt")

runs=()
# Runs filmcache under callgrind, its output kept in run order: $@ its arguments, after `env` ones.
traced() {
  local trace="$work/run-$((${#runs[@]} + 1)).callgrind"
  runs+=("$trace")
  local settings=()
  while [[ "${1:-}" == *=* || "${1:-}" == -u ]]; do
    if [ "$1" = -u ]; then settings+=("$1" "$2") && shift 2; else settings+=("$1") && shift; fi
  done
  env "${settings[@]}" valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$trace" --log-file="$trace.log" "$fc" "$@"
}

# In order of how much their layout matters: --version's functions (the start every command shares)
# first, then those the warm adds, then show's, quota's and plan's (the start-up the bench measures).
export OMDB_API_KEY=demo
traced --version >/dev/null
traced warm --db "$work/cache.sqlite" --base-url "$base" --rate 0 --log-level warning "$work/worklist.txt"
traced warm --db "$work/cache.sqlite" --base-url "$base" --rate 0 --log-level warning "$work/ids.txt"
traced -u OMDB_API_KEY show --db "$work/cache.sqlite" "$id" >/dev/null
traced -u OMDB_API_KEY quota --db "$work/cache.sqlite" >/dev/null
traced -u OMDB_API_KEY plan --db "$work/cache.sqlite" "$work/ids.txt" >/dev/null
traced quota --db "$work/cache.sqlite" >/dev/null
traced stats --db "$work/cache.sqlite" >/dev/null
traced posters --db "$work/cache.sqlite" --store "$work/posters" --poster-rate 0 --poster-allow-host 127.0.0.1 \
  --log-level warning >/dev/null
traced export --db "$work/cache.sqlite" >"$work/films.jsonl"
traced import --db "$work/imported.sqlite" "$work/films.jsonl" >/dev/null
traced export --db "$work/cache.sqlite" --format csv >"$work/films.csv"
traced import --db "$work/imported-csv.sqlite" "$work/films.csv" >/dev/null

echo client-token >"$work/tokens"
serve_trace="$work/run-serve.callgrind"
runs+=("$serve_trace")
valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
  --callgrind-out-file="$serve_trace" --log-file="$serve_trace.log" \
  "$fc" serve --db "$work/cache.sqlite" --tokens-file "$work/tokens" --listen 127.0.0.1:0 --base-url "$base" \
  --log-format logfmt >"$work/serve.log" 2>&1 &
serve_pid=$!
serve="http://127.0.0.1:$(port_of "$work/serve.log" listening)"
for film in $(head -n 50 "$work/ids.txt") tt7777777; do
  curl -s --max-time 60 -o /dev/null "$serve/?apikey=client-token&i=$film"
done
curl -s --max-time 60 -o /dev/null "$serve/healthz"
curl -s --max-time 60 -o /dev/null "$serve/metrics"
kill -TERM "$serve_pid"
for _ in $(seq 1 1200); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$serve_pid" 2>/dev/null && { echo "symbol-order: serve did not stop on SIGTERM within 120 s" >&2; exit 1; }
wait "$serve_pid" || true
serve_pid=""
[ -s "$serve_trace" ] || { echo "symbol-order: serve left no trace" >&2; exit 1; }

# Every function of the binary that ran ("fn=" under the binary's "ob="), by the first run it ran in,
# then by name, so the same runs give the same file.
python3 - "$fc" "$out" "${runs[@]}" <<'PY'
import os, sys
binary, out, files = os.path.realpath(sys.argv[1]), sys.argv[2], sys.argv[3:]
first = {}
for run, path in enumerate(files):
    ob = None
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("ob="):
            ob = os.path.realpath(line[3:].strip())
        elif line.startswith("fn=") and ob == binary:
            name = line[3:].strip().split("'")[0]  # callgrind marks a recursion's depth with 'N
            # A function callgrind cannot name it names by its address ("(below main)": its own
            # name for what calls main): lld orders by symbol.
            if not name.startswith(("0x", "(")):
                first.setdefault(name, run)
names = sorted(first, key=lambda name: (first[name], name))
# Fewer than this and the traces did not name the binary's functions (a path that did not match):
# the file is left as it was.
if len(names) < 1000:
    sys.exit(f"symbol-order: only {len(names)} functions of {binary} in the traces; {out} left as it was")
with open(out + ".new", "w") as f:
    f.write("".join(name + "\n" for name in names))
os.replace(out + ".new", out)
print(f"symbol-order: {len(names)} functions from {len(files)} runs into {out}")
PY
