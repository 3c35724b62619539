#!/usr/bin/env bash
# make bench: filmcache's stages side by side with their reference runs, on this machine, in one go.
#   fetch   filmcache-bench fetch (libcurl multi from Swift) vs curl --parallel --parallel-max 32,
#           same URLs, same nginx serving the generated corpus from files
#   warm    the whole filmcache warm (fetch + decode + normalize + upsert) vs the same curl run,
#           with peak RSS from /usr/bin/time -v; BENCH_WARM_ROUNDS (3) rounds
#   upsert  normalized films into a fresh cache (then again, as updates) vs Python's sqlite3 executemany
#           of the same rows into the same schema
#   plan    `filmcache plan` of a BENCH_PLAN_IDS (100000) worklist over a BENCH_PLAN_ROWS (1000000) cache
#   export  `filmcache export` of a BENCH_TRANSFER_ROWS (100000) cache (JSON Lines, then CSV) beside `sqlite3 -json`
#           (`-csv`), and `filmcache import` of each file beside Python's json.loads/csv + executemany, into a
#           fresh cache: films/s and peak RSS, which should stay flat whatever the size; BENCH_TRANSFER_ROUNDS (3)
#           rounds of the four runs in turn, the median of each pair's ratios
#   rate    the rate gate on the real clock for BENCH_RATE_SECONDS (60): achieved rate, busiest second
#   memory  whole warms of 20,000, 100,000 and 800,000 IDs (BENCH_RSS_SIZES; 800,000 is the most distinct IDs the
#           stand-in generates; the corpus is generated per ID, about 3 GB and minutes of disk at 800,000): each
#           one's rate as a ratio to the first size's, and its peak RSS against the 32 MB goal (rate within 10%,
#           RSS flat), with the largest sample of its memory split into what is mapped from files (code) and the rest
#   serve   `filmcache serve`'s hit path under wrk vs nginx serving the same bodies (BENCH_SERVE_IDS 1000 films,
#           BENCH_SERVE_SECONDS 10 a round), with one thread reading connections (as nginx's one worker) and
#           with its default, each just started and then warm; then its RSS across BENCH_SERVE_REQUESTS
#           (1000000) requests
#   startup `filmcache show`, `quota` and `plan` on serve's small cache vs the sqlite3 CLI answering the same
#           question, with hyperfine (medians of 30 runs)
#   posters `filmcache posters` of BENCH_POSTERS (5000) images from nginx into a store vs curl --parallel
#           writing the same files, BENCH_POSTER_ROUNDS (3) rounds, peak RSS; then the revalidation pass (304s);
#           each side's files go into a fresh loop-mounted ext4 (BENCH_POSTER_FS=work: into the work directory)
#   pg      (BENCH_PG=0 skips it) a throwaway PostgreSQL 15 server on loopback, Debian's defaults (fsync on;
#           BENCH_PG_DURABLE=0 runs it as the tests do, fsync off, and says so):
#           the whole warm into PostgreSQL vs into SQLite; 1, 2 and 4 warms at once sharing one plan
#           (films/s, duplicate calls from nginx's log of that section's requests); `filmcache plan` of a
#           BENCH_PG_PLAN_IDS (100000) worklist over a BENCH_PG_PLAN_ROWS (1000000) PostgreSQL cache
# Sizes: BENCH_FILMS (default 20000), BENCH_IN_FLIGHT (32). BENCH_FILMCACHE=PATH measures another filmcache binary.
# BENCH_PERF_DIR=DIR profiles the warm, posters, export and import runs (perf_prefix).
# BENCH_SECTIONS="export serve …" runs only the sections named (default: all of them, in the order above; a section
# makes what it reads when an earlier one did not). BENCH_ONLY=pg is BENCH_SECTIONS=pg; BENCH_PG=0 leaves pg out.
set -euo pipefail
cd "$(dirname "$0")/.."
films=${BENCH_FILMS:-20000}
inflight=${BENCH_IN_FLIGHT:-32}
swift build -c release >/dev/null
bin=$(swift build -c release --show-bin-path)
# The filmcache binary measured: the release build's, or BENCH_FILMCACHE (the installed package's /usr/bin/filmcache,
# statically linked, for one); the stand-in and filmcache-bench always come from the release build.
fc=${BENCH_FILMCACHE:-$bin/filmcache}
work=$(mktemp -d)
chmod 755 "$work" # nginx's worker runs as nobody and must read the corpus
nginx_pid=""
pg_dir=""
pg_bin=${FILMCACHE_PG_BIN:-/usr/lib/postgresql/15/bin}
# The server refuses to run as root: its programs run as the postgres user, which owns its directory.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  [ -n "${serve_pid:-}" ] && kill "$serve_pid" 2>/dev/null || true
  [ -n "${warm_pid:-}" ] && kill "$warm_pid" 2>/dev/null || true
  if [ -n "$pg_dir" ]; then
    (cd / && as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -w -t 60 stop -m fast >/dev/null 2>&1) || true
    rm -rf "$pg_dir"
  fi
  for mount in $mounts; do
    # A program still writing there (a bench stopped mid-round) holds it: detach it rather than delete through it.
    umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null || echo "bench: could not unmount $mount" >&2
  done
  rm -rf "$work"
}
mounts=""
trap cleanup EXIT
sections=${BENCH_SECTIONS:-all}
[ "${BENCH_ONLY:-}" = pg ] && sections=pg
# Whether section $1 runs.
want() {
  [ "$1" = pg ] && [ "${BENCH_PG:-1}" = 0 ] && return 1
  [ "$sections" = all ] && return 0
  case " $sections " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# 800,000 is the most distinct IDs the stand-in's generator makes (omdb-standin generate refuses more).
rss_sizes=${BENCH_RSS_SIZES:-20000 100000 800000}
corpus=$films
if want memory; then
  for size in $rss_sizes; do [ "$size" -gt "$corpus" ] && corpus=$size; done
fi
echo "generating $corpus films (seed 7)…"
"$bin/omdb-standin" generate --count "$corpus" --seed 7 --out "$work/films" >/dev/null
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
# The same films on a second port whose requests are logged, one ID a line (the concurrent warms' section).
log_port=$(free_port)
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $work/nginx/error.log warn;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  default_type application/json;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  server {
    listen 127.0.0.1:$port;
    root $work;
    location = / { try_files /films/\$arg_i.json =404; }
    location /p/ { default_type image/jpeg; }
  }
  log_format ids '\$arg_i \$msec';
  server {
    listen 127.0.0.1:$log_port;
    root $work;
    access_log $work/nginx/ids.log ids;
    location = / { try_files /films/\$arg_i.json =404; }
  }
}
CONF
/usr/sbin/nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
nginx_pid=$!
for _ in $(seq 1 50); do
  code=0
  curl -s -o /dev/null "http://127.0.0.1:$port/" || code=$?
  [ "$code" -ne 7 ] && break
  sleep 0.1
done

ls "$work/films" | sed 's/\.json$//' >"$work/all-ids.txt"
head -n "$films" "$work/all-ids.txt" >"$work/ids.txt"
# The stage benchmarks read exactly the fetched sample: hard links to its BENCH_FILMS bodies.
mkdir -p "$work/sample"
sed "s|.*|$work/films/&.json|" "$work/ids.txt" | xargs ln -t "$work/sample"
sed "s|^|http://127.0.0.1:$port/?apikey=bench\&i=|" "$work/ids.txt" >"$work/urls.txt"
sed 's/.*/url = "&"\noutput = "\/dev\/null"/' "$work/urls.txt" >"$work/curl.cfg"
count=$(wc -l <"$work/ids.txt")

now() { date +%s.%N; }
# BENCH_PERF_DIR=DIR: the sections that support it run filmcache under `perf record -g`, one DIR/NAME.data a run
# (the timings then include perf's cost: a profile, not a number to report).
# (DIR is made when missing; a path with spaces is not supported.)
[ -z "${BENCH_PERF_DIR:-}" ] || mkdir -p "$BENCH_PERF_DIR"
perf_prefix() { [ -z "${BENCH_PERF_DIR:-}" ] || echo "perf record -q -g -o $BENCH_PERF_DIR/$1.data --"; }
rate() { python3 -c "import sys; n,t=float(sys.argv[1]),float(sys.argv[2]); print(f'{n/t:.0f}')" "$1" "$2"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }
# Pairs "a:b" of rates: the median a, the median b and the median of the ratios b/a.
medians() {
  python3 -c '
import statistics, sys
pairs = [tuple(map(float, p.split(":"))) for p in sys.argv[1:]]
print(int(statistics.median(a for a, _ in pairs)), int(statistics.median(b for _, b in pairs)),
      f"{statistics.median(b / a for a, b in pairs):.2f}")' "$@"
}
# A worklist of $2 IDs over a cache of $1 films (tt00000001…): nine in ten cached, the rest not; into $3.
plan_worklist() {
  python3 - "$1" "$2" "$3" <<'PY'
import random, sys
rows, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
r = random.Random(5)
known = r.sample(range(1, rows + 1), min(rows, n * 9 // 10))
ids = [f"tt{i:08d}" for i in known] + [f"tt{rows + 1 + i:08d}" for i in range(n - len(known))]
r.shuffle(ids)
open(out, "w").write("\n".join(ids) + "\n")
PY
}
# Three runs of `filmcache plan` of worklist $2 over the cache $1: wall time, peak RSS, what it found.
plan_runs() {
  for run in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$work/plan-time.txt" "$fc" plan --db "$1" --json "$2" >"$work/plan.json"
    read -r plan_s plan_kb <"$work/plan-time.txt"
    printf '  run %d: filmcache plan %s s wall, peak RSS %d MB (considered %s, fresh %s, due %s)\n' "$run" "$plan_s" \
      $((plan_kb / 1024)) "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["considered"])' "$work/plan.json")" \
      "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["fresh"])' "$work/plan.json")" \
      "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["toFetch"] + d["deferred"])' "$work/plan.json")"
  done
}


if want fetch; then
echo
echo "== fetch: $count URLs, $inflight in flight, nginx on 127.0.0.1 =="
t0=$(now)
curl -s --parallel --parallel-max "$inflight" --config "$work/curl.cfg" --write-out '%{http_code}\n' >"$work/codes.txt" 2>/dev/null
t1=$(now)
curl_ok=$(grep -c '^200$' "$work/codes.txt" || true)
[ "$curl_ok" -eq "$count" ] || { echo "curl got $curl_ok of $count answers with status 200" >&2; exit 1; }
curl_s=$(python3 -c "print($t1-$t0)")
curl_rate=$(rate "$count" "$curl_s")
fetch_line=$("$bin/filmcache-bench" fetch --urls "$work/urls.txt" --max-in-flight "$inflight")
fc_rate=$(echo "$fetch_line" | sed -n 's/.*= \([0-9]*\) req\/s/\1/p')
echo "$fetch_line" | grep -q " $count OK" || { echo "filmcache fetch: not every answer was 200: $fetch_line" >&2; exit 1; }
printf '  %-36s %8s req/s\n' "curl --parallel --parallel-max $inflight" "$curl_rate" "filmcache fetch (libcurl multi)" "$fc_rate"
echo "  ratio filmcache/curl: $(ratio "$fc_rate" "$curl_rate")"

fi # fetch
if want decode; then
echo
echo "== decode + normalize: one core, the same $count bodies in memory =="
py_rate=$(python3 Scripts/bench_decode.py "$work/sample" 3 | sed -n 's/.*: \([0-9]*\) objects\/s/\1/p')
dec_rate=$("$bin/filmcache-bench" decode --corpus "$work/sample" --seconds 3 | sed -n 's/.*: \([0-9]*\) films\/s/\1/p')
printf '  %-36s %8s objects/s\n' "python3 json.loads (decode only)" "$py_rate"
printf '  %-36s %8s films/s\n' "filmcache decode + normalize" "$dec_rate"
echo "  ratio filmcache/python: $(ratio "$dec_rate" "$py_rate")"

fi # decode
if want warm; then
echo
echo "== warm end to end: fetch + decode + normalize + upsert into a fresh DB =="
warm_rounds=${BENCH_WARM_ROUNDS:-3}
echo "   ($warm_rounds rounds, each curl --parallel then filmcache warm, so both see the same machine; medians)"
pairs=""
for round in $(seq 1 "$warm_rounds"); do
  t0=$(now)
  curl -s --parallel --parallel-max "$inflight" --config "$work/curl.cfg" -o /dev/null 2>/dev/null
  t1=$(now)
  rm -f "$work/bench.sqlite"*
  OMDB_API_KEY=bench /usr/bin/time -v -o "$work/time.txt" $(perf_prefix "warm-$round") "$fc" warm \
    --db "$work/bench.sqlite" \
    --base-url "http://127.0.0.1:$port/" --max-in-flight "$inflight" --rate 0 --daily-limit 100000000 --reserve 0 \
    "$work/ids.txt" >"$work/warm.txt"
  warm_s=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): \(.*\)/\1/p' "$work/time.txt" \
    | python3 -c 'import sys; p=sys.stdin.read().strip().split(":"); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))')
  rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  rows=$(sqlite3 "$work/bench.sqlite" 'SELECT count(*) FROM films')
  [ "$rows" -eq "$count" ] || { echo "filmcache warm stored $rows of $count films" >&2; exit 1; }
  round_curl=$(rate "$count" "$(python3 -c "print($t1-$t0)")")
  round_warm=$(rate "$count" "$warm_s")
  printf '  round %d: curl %8s req/s, filmcache warm %8s films/s (%.1f s, peak RSS %d MB), ratio %s\n' "$round" \
    "$round_curl" "$round_warm" "$warm_s" $((rss_kb / 1024)) "$(ratio "$round_warm" "$round_curl")"
  pairs="$pairs $round_curl:$round_warm"
done
read -r median_curl median_warm median_ratio <<<"$(medians $pairs)"
printf '  %-36s %8s req/s (median)\n' "curl --parallel --parallel-max $inflight" "$median_curl"
printf '  %-36s %8s films/s (median)\n' "filmcache warm" "$median_warm"
echo "  ratio filmcache warm / curl fetch-only: $median_ratio (median of the rounds' ratios)"

fi # warm
if want posters; then
echo
posters=${BENCH_POSTERS:-5000}
poster_rounds=${BENCH_POSTER_ROUNDS:-3}
echo "== posters: $posters images (8-24 KiB) from nginx, $inflight in flight, no rate limit, $poster_rounds rounds (goal: >= 0.8x) =="
if [ ! -f "$work/bench.sqlite" ]; then
  OMDB_API_KEY=bench "$fc" warm --db "$work/bench.sqlite" --base-url "http://127.0.0.1:$port/" \
    --max-in-flight "$inflight" --rate 0 --daily-limit 100000000 --reserve 0 --no-progress "$work/ids.txt" >/dev/null
fi
# A copy with what the WAL holds (a plain cp of the file would leave that out).
rm -f "$work/posters-fresh.sqlite"
sqlite3 "$work/bench.sqlite" "VACUUM INTO '$work/posters-fresh.sqlite'"
posters=$(python3 Scripts/bench_posters.py "$work/posters-fresh.sqlite" "$work/p" "http://127.0.0.1:$port/p/" "$posters")
sqlite3 "$work/posters-fresh.sqlite" "SELECT poster_url FROM films WHERE poster_url IS NOT NULL" \
  | awk -v d="$work/curl-posters" '{ n = split($0, a, "/"); printf "url = \"%s\"\noutput = \"%s/%s\"\n", $0, d, a[n] }' \
  >"$work/posters.cfg"
# Where the files go. fresh (the default where this runs as root): each side of each round writes into a new ext4
# file system of its own (mkfs.ext4's defaults, journal included, inode tables written at once), loop-mounted, as
# on a host's data disk. work: into the work directory, on whatever file system holds it. On an ext4 without a
# journal (this machine's root), making an inode passes over every inode freed in the last one to five minutes,
# so the creation rate of both sides there depends on what was deleted before (the last bench's work directory).
poster_fs=${BENCH_POSTER_FS:-fresh}
# Room for one side's files: three times what the largest images take, and the file system's own.
poster_fs_mb=$((posters * 72 / 1024 + 256))
# A new directory $1 for one side's files: a fresh file system mounted there, or a plain directory.
poster_dir() {
  mkdir -p "$1" || return 1
  [ "$poster_fs" = fresh ] || return 0
  truncate -s "${poster_fs_mb}M" "$1.img" && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$1.img" \
    && mount -o loop "$1.img" "$1" || return 1
  mounts="$mounts $1"
}
# Each round's mounts go once it is measured (and the store's after the revalidation, for the last one).
poster_undir() {
  [ "$poster_fs" = fresh ] || return 0
  umount "$1" || return 1
  mounts=${mounts/ $1/}
  rm -f "$1.img"
}
# Whether a fresh file system can be made and mounted here (root, a loop device, mkfs.ext4): tried once.
if [ "$poster_fs" = fresh ] && ! (poster_dir "$work/poster-fs-check" && poster_undir "$work/poster-fs-check") 2>/dev/null; then
  umount "$work/poster-fs-check" 2>/dev/null || true
  echo "  (no fresh file system can be mounted here: the files go into the work directory, as BENCH_POSTER_FS=work)"
  poster_fs=work
fi
echo "  files into: $poster_fs file systems ($(df -T "$work" | awk 'NR == 2 { print $2 }') holds the work directory)"
# Each round: curl writing the files into a new directory, then filmcache into a new store and a fresh copy of the
# cache, in the same minute. In the work directory nothing is deleted until the last round: ext4 passes over inodes
# freed in the last minutes when it makes new ones (without a journal), which would slow the next round.
poster_pairs=""
for round in $(seq 1 "$poster_rounds"); do
  sed "s|/curl-posters/|/curl-posters-$round/|" "$work/posters.cfg" >"$work/posters-$round.cfg"
  poster_dir "$work/curl-posters-$round"
  poster_dir "$work/store-$round"
  # The last round's WAL would be read as this copy's: it goes first.
  rm -f "$work/posters.sqlite-wal" "$work/posters.sqlite-shm"
  cp "$work/posters-fresh.sqlite" "$work/posters.sqlite"
  # Each side starts with nothing unwritten on the file system: filmcache's syncfs would otherwise flush what
  # curl (or the copy) left in the page cache, and time it as its own.
  sync
  t0=$(now)
  curl -s --parallel --parallel-max "$inflight" --config "$work/posters-$round.cfg" 2>/dev/null
  t1=$(now)
  curl_posters=$(rate "$posters" "$(python3 -c "print($t1-$t0)")")
  sync
  t0=$(now)
  /usr/bin/time -f "%M" -o "$work/posters-time.txt" $(perf_prefix "posters-$round") "$fc" posters --db "$work/posters.sqlite" \
    --store "$work/store-$round" --poster-rate 0 --poster-max-in-flight "$inflight" --poster-allow-host 127.0.0.1 \
    >"$work/posters.txt"
  t1=$(now)
  stored=$(sqlite3 "$work/posters.sqlite" "SELECT count(*) FROM posters WHERE status = 'stored'")
  [ "$stored" -eq "$posters" ] || { echo "filmcache posters stored $stored of $posters" >&2; exit 1; }
  fc_posters=$(rate "$posters" "$(python3 -c "print($t1-$t0)")")
  printf '  round %d: curl %8s posters/s, filmcache posters %8s posters/s (peak RSS %d MB), ratio %s\n' "$round" \
    "$curl_posters" "$fc_posters" $(($(cat "$work/posters-time.txt") / 1024)) "$(ratio "$fc_posters" "$curl_posters")"
  poster_pairs="$poster_pairs $curl_posters:$fc_posters"
  poster_undir "$work/curl-posters-$round"
  [ "$round" -eq "$poster_rounds" ] || poster_undir "$work/store-$round"
done
t0=$(now)
"$fc" posters --db "$work/posters.sqlite" --store "$work/store-$poster_rounds" --poster-rate 0 \
  --poster-max-in-flight "$inflight" --poster-revalidate-days 0 --poster-allow-host 127.0.0.1 >"$work/posters2.txt"
t1=$(now)
grep -q "not modified $posters" "$work/posters2.txt" || { echo "revalidation: $(cat "$work/posters2.txt")" >&2; exit 1; }
fc_revalidate=$(rate "$posters" "$(python3 -c "print($t1-$t0)")")
poster_undir "$work/store-$poster_rounds"
rm -rf "$work"/curl-posters-* "$work"/store-*
read -r median_curl median_fc median_ratio <<<"$(medians $poster_pairs)"
printf '  %-36s %8s posters/s (median)\n' "curl --parallel --parallel-max $inflight" "$median_curl" \
  "filmcache posters (check, hash, store)" "$median_fc"
printf '  %-36s %8s posters/s (last round)\n' "filmcache posters, revalidation (304)" "$fc_revalidate"
echo "  ratio filmcache/curl: $median_ratio (median of the rounds' ratios; goal >= 0.8)"

fi # posters
if want upsert; then
echo
echo "== upsert: the same $count normalized films, batches of 256, WAL + synchronous=NORMAL =="
"$bin/filmcache-bench" upsert --corpus "$work/sample" --db "$work/upsert.sqlite" >"$work/upsert.txt"
python3 Scripts/bench_upsert.py "$work/upsert.sqlite" "$work/upsert-py.sqlite" >>"$work/upsert.txt"
for pass in insert update; do
  fc=$(sed -n "s/^filmcache upsert ($pass).* = \([0-9]*\) rows\/s/\1/p" "$work/upsert.txt")
  py=$(sed -n "s/^python sqlite3 executemany ($pass).* = \([0-9]*\) rows\/s/\1/p" "$work/upsert.txt")
  printf '  %-36s %8s rows/s\n' "python3 sqlite3 executemany ($pass)" "$py" "filmcache CacheStore.write ($pass)" "$fc"
  echo "  ratio filmcache/python ($pass): $(ratio "$fc" "$py")"
done

fi # upsert
plan_rows=${BENCH_PLAN_ROWS:-1000000}
plan_ids=${BENCH_PLAN_IDS:-100000}
if want plan; then
echo
echo "== plan: a $plan_ids-ID worklist over a $plan_rows-row cache (goal < 2 s) =="
"$bin/filmcache-bench" fill --db "$work/plan.sqlite" --rows "$plan_rows" | sed 's/^/  /'
plan_worklist "$plan_rows" "$plan_ids" "$work/plan-ids.txt"
plan_runs "$work/plan.sqlite" "$work/plan-ids.txt"

fi # plan
if want export; then
# BENCH_TRANSFER_ROWS (100000) films, filled as the plan's cache is; each format's export beside `sqlite3 -json`
# (`-csv` for CSV) dumping the same columns, and its import into a fresh cache beside Python reading the same
# file (json.loads or csv, sqlite3 executemany upserts, newer wins, batches of 1000, WAL) into a copy of an
# empty cache filmcache made. Goals: export >= 1x the CLI, import >= 2x Python with peak RSS <= 40 MB.
transfer_rows=${BENCH_TRANSFER_ROWS:-100000}
"$bin/filmcache-bench" fill --db "$work/transfer.sqlite" --rows "$transfer_rows" >/dev/null
# An import of nothing creates the cache (and says nothing was read: not an error here).
"$fc" import --db "$work/empty.sqlite" /dev/null >/dev/null 2>&1 || [ -f "$work/empty.sqlite" ]
sqlite3 "$work/empty.sqlite" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
columns=$(sqlite3 "$work/transfer.sqlite" "SELECT group_concat(name, ', ') FROM pragma_table_info('films')")
echo
echo "== export and import: $transfer_rows films out to a file and back into a fresh cache =="
echo "   (goals: export >= 1x sqlite3's own dump, import >= 2x the Python peer, peak RSS <= 40 MB;"
echo "    BENCH_TRANSFER_ROUNDS (3) rounds of the four runs in turn, medians)"
# Runs the rest of the line under /usr/bin/time; sets took_s and took_mb.
timed() {
  /usr/bin/time -f "%e %M" -o "$work/transfer-time.txt" "$@"
  read -r took_s took_kb <"$work/transfer-time.txt"
  took_mb=$((took_kb / 1024))
}
row() { printf '  %-44s %6.2f s %9s films/s  peak RSS %3d MB\n' "$1" "$2" "$(rate "$transfer_rows" "$2")" "$3"; }
transfer_rounds=${BENCH_TRANSFER_ROUNDS:-3}
for format in jsonl csv; do
  cli=json
  [ "$format" = csv ] && cli=csv
  py=$( [ "$format" = csv ] && echo csv || echo json.loads)
  # Rounds of the four runs in turn, so each pair sees the same machine; the medians are the result.
  export_pairs=""
  import_pairs=""
  for round in $(seq "$transfer_rounds"); do
    echo "  $format, round $round:"
    timed sqlite3 "-$cli" "$work/transfer.sqlite" "SELECT $columns FROM films ORDER BY imdb_id" >"$work/cli.$format"
    row "  sqlite3 -$cli (the CLI's dump)" "$took_s" "$took_mb"
    cli_s=$took_s
    timed $(perf_prefix "export-$format") "$fc" export --db "$work/transfer.sqlite" --format "$format" \
      >"$work/export.$format"
    row "  filmcache export --format $format" "$took_s" "$took_mb"
    echo "    ratio filmcache/sqlite3 export: $(ratio "$cli_s" "$took_s")  ($(($(stat -c %s \
      "$work/export.$format") / 1048576)) MB file, the CLI's $(($(stat -c %s "$work/cli.$format") / 1048576)) MB)"
    export_pairs="$export_pairs $(rate "$transfer_rows" "$cli_s"):$(rate "$transfer_rows" "$took_s")"
    rm -f "$work/cli.$format" "$work/import.sqlite"* "$work/import-py.sqlite"*
    cp "$work/empty.sqlite" "$work/import-py.sqlite"
    timed python3 Scripts/bench_import.py "$work/export.$format" "$work/import-py.sqlite" 1000 >/dev/null
    row "  python3 $py + sqlite3 executemany" "$took_s" "$took_mb"
    py_s=$took_s
    timed $(perf_prefix "import-$format") "$fc" import --db "$work/import.sqlite" "$work/export.$format" >/dev/null
    row "  filmcache import ($format)" "$took_s" "$took_mb"
    echo "    ratio filmcache/python import: $(ratio "$py_s" "$took_s")"
    import_pairs="$import_pairs $(rate "$transfer_rows" "$py_s"):$(rate "$transfer_rows" "$took_s")"
    for db in import import-py; do
      imported=$(sqlite3 "$work/$db.sqlite" 'SELECT count(*) FROM films')
      [ "$imported" -eq "$transfer_rows" ] || { echo "$db of $format stored $imported of $transfer_rows films" >&2; exit 1; }
    done
    rm -f "$work/export.$format" "$work/import.sqlite"* "$work/import-py.sqlite"*
  done
  read -r median_cli median_export export_ratio <<<"$(medians $export_pairs)"
  read -r median_py median_import import_ratio <<<"$(medians $import_pairs)"
  echo "  $format: sqlite3 -$cli $median_cli films/s, filmcache export $median_export films/s (medians)"
  echo "  ratio filmcache/sqlite3 export ($format): $export_ratio (median of the rounds' ratios; goal >= 1)"
  echo "  $format: python3 $py $median_py films/s, filmcache import $median_import films/s (medians)"
  echo "  ratio filmcache/python import ($format): $import_ratio (median of the rounds' ratios; goal >= 2)"
done
rm -f "$work/transfer.sqlite"* "$work/empty.sqlite"*

fi # export
if want memory; then
echo
echo "== memory: whole warms into fresh DBs as the worklist grows (goal: peak RSS <= 32 MB, flat; rate within 10%) =="
rss_first=""
# Samples process $1's memory every 50 ms until it exits; prints the largest sample's RSS and its anonymous part (KB).
rss_split() {
  local best=0 best_anon=0 rss anon key value _
  while [ -r "/proc/$1/smaps_rollup" ]; do
    rss=0 anon=0
    while read -r key value _; do
      case $key in Rss:) rss=$value ;; Anonymous:) anon=$value ;; esac
    done <"/proc/$1/smaps_rollup" 2>/dev/null || true
    if [ "$rss" -gt "$best" ]; then best=$rss best_anon=$anon; fi
    sleep 0.05
  done
  echo "$best $best_anon"
}
for size in $rss_sizes; do
  head -n "$size" "$work/all-ids.txt" >"$work/rss-ids.txt"
  rm -f "$work/rss.sqlite"*
  OMDB_API_KEY=bench /usr/bin/time -f "%e %M" -o "$work/rss-time.txt" "$fc" warm --db "$work/rss.sqlite" \
    --base-url "http://127.0.0.1:$port/" --max-in-flight "$inflight" --rate 0 --daily-limit 100000000 --reserve 0 \
    --no-progress "$work/rss-ids.txt" >/dev/null &
  time_pid=$!
  warm_pid=""
  for _ in $(seq 1 200); do
    warm_pid=$(pgrep -P "$time_pid" || true)
    [ -n "$warm_pid" ] && break
    sleep 0.01
  done
  [ -n "$warm_pid" ] || { echo "bench: the warm under /usr/bin/time was not found (pgrep, from procps)" >&2; exit 1; }
  read -r split_kb split_anon_kb <<<"$(rss_split "$warm_pid")"
  wait "$time_pid"
  warm_pid=""
  read -r rss_s rss_kb <"$work/rss-time.txt"
  rss_rows=$(sqlite3 "$work/rss.sqlite" 'SELECT count(*) FROM films')
  [ "$rss_rows" -eq "$size" ] || { echo "filmcache warm stored $rss_rows of $size films" >&2; exit 1; }
  rss_rate=$(rate "$size" "$rss_s")
  [ -n "$rss_first" ] || rss_first=$rss_rate
  printf '  %7d IDs: %6.1f s, %6s films/s (%s x the first size'"'"'s rate), peak RSS %d MB (goal <= 32: %s)\n' "$size" \
    "$rss_s" "$rss_rate" "$(ratio "$rss_rate" "$rss_first")" $((rss_kb / 1024)) \
    "$([ "$rss_kb" -le $((32 * 1024)) ] && echo met || echo not met)"
  printf '           the largest sample of it (/proc/PID/smaps_rollup, every 50 ms): %d MB, of which mapped from files\n' \
    $((split_kb / 1024))
  printf '           (code and read-only data of the binary and its libraries) %d MB, anonymous (heap, stacks) %d MB\n' \
    $(((split_kb - split_anon_kb) / 1024)) $((split_anon_kb / 1024))
  rm -f "$work/rss.sqlite"*
done

fi # memory
if want rate; then
rate_seconds=${BENCH_RATE_SECONDS:-60}
echo
echo "== rate limiter on the real clock: 20 req/s, burst 5, 32 eager callers, $rate_seconds s =="
echo "  $("$bin/filmcache-bench" rate --rate 20 --burst 5 --seconds "$rate_seconds")"

fi # rate
if want serve; then
serve_ids=${BENCH_SERVE_IDS:-1000}
serve_seconds=${BENCH_SERVE_SECONDS:-10}
serve_requests=${BENCH_SERVE_REQUESTS:-1000000}
echo
echo "== serve: the hit path under wrk -t2 -c32 (${serve_seconds} s), $serve_ids films, vs nginx serving the same bodies from files =="
head -n "$serve_ids" "$work/ids.txt" >"$work/serve-ids.txt"
OMDB_API_KEY=bench "$fc" warm --db "$work/serve.sqlite" --base-url "http://127.0.0.1:$port/" --rate 0 \
  --daily-limit 100000000 --reserve 0 \
  --max-in-flight "$inflight" --no-progress "$work/serve-ids.txt" >/dev/null
echo "bench-token-0001" >"$work/serve-tokens"
# A serve on a free port (serve_port, serve_pid), with any flags given, once it answers.
start_serve() {
  serve_port=$(free_port)
  OMDB_API_KEY=bench "$fc" serve --db "$work/serve.sqlite" --tokens-file "$work/serve-tokens" \
    --listen "127.0.0.1:$serve_port" --base-url "http://127.0.0.1:$port/" --log-level error "$@" &
  serve_pid=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$serve_port/healthz" && break; sleep 0.1; done
}
cat >"$work/rotate.lua" <<'LUA'
local ids = {}
for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
local prefix = os.getenv("BENCH_PREFIX")
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", prefix .. ids[(n % #ids) + 1])
end
LUA
# wrk's summary: requests/s, p50 and p99 latency, requests done.
wrk_run() {
  BENCH_IDS="$work/serve-ids.txt" BENCH_PREFIX="$2" wrk -t2 -c32 -d"$3"s --latency -s "$work/rotate.lua" "$1" |
    awk '/Requests\/sec/ {r=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} / requests in / {n=$1}
         END {printf "%s %s %s %s\n", r, p50, p99, n}'
}
# wrk's latencies in milliseconds ("446.00us", "3.19ms", "1.02s").
millis() { python3 -c 'import re,sys; v,u=re.match(r"([\d.]+)(us|ms|s)",sys.argv[1]).groups(); print(float(v)*{"us":0.001,"ms":1,"s":1000}[u])' "$1"; }
read -r nginx_rps nginx_p50 nginx_p99 _ < <(wrk_run "http://127.0.0.1:$port" "/?apikey=bench&i=" "$serve_seconds")
printf '  nginx (static files) %9.0f req/s  p50 %8s  p99 %8s\n' "$nginx_rps" "$nginx_p50" "$nginx_p99"
# serve as nginx runs here (one thread reading connections, as nginx's one worker), then with its default (one a
# core). Each just started ("cold": the first, on a cache no serve has asked of, reads each film from the cache
# at its first request; the second starts again after it and holds the films the first was asked for), then
# again with every film held in memory, as nginx's files are in the page cache ("warm").
for threads in 1 default; do
  if [ "$threads" = 1 ]; then start_serve --io-threads 1; label="serve --io-threads 1"; else start_serve; label="serve (one a core)"; fi
  for state in cold warm; do
    read -r serve_rps serve_p50 serve_p99 _ < <(wrk_run "http://127.0.0.1:$serve_port" "/?apikey=bench-token-0001&i=" "$serve_seconds")
    printf '  %-20s %-4s %9.0f req/s  p50 %8s  p99 %8s   %s x nginx, p99 %s x (goal: >= 1.0, p99 <= 1.0)\n' \
      "$label" "$state" "$serve_rps" "$serve_p50" "$serve_p99" "$(ratio "$serve_rps" "$nginx_rps")" \
      "$(ratio "$(millis "$serve_p99")" "$(millis "$nginx_p99")")"
  done
  if [ "$threads" = 1 ]; then kill -TERM "$serve_pid"; wait "$serve_pid" || true; fi
done
echo "  memory across $serve_requests requests (RSS of serve after each round):"
done_requests=0
printf '    %9d requests: %6d KB\n' 0 "$(ps -o rss= -p "$serve_pid")"
while [ "$done_requests" -lt "$serve_requests" ]; do
  read -r _ _ _ n < <(wrk_run "http://127.0.0.1:$serve_port" "/?apikey=bench-token-0001&i=" "$serve_seconds")
  done_requests=$((done_requests + n))
  printf '    %9d requests: %6d KB\n' "$done_requests" "$(ps -o rss= -p "$serve_pid")"
done
kill -TERM "$serve_pid"; wait "$serve_pid" || true
fi # serve
if want startup; then
echo
echo "== start-up: filmcache show, quota and plan vs the sqlite3 CLI answering the same question (hyperfine -N, medians) =="
if [ ! -f "$work/serve.sqlite" ]; then
  head -n "${BENCH_SERVE_IDS:-1000}" "$work/ids.txt" >"$work/serve-ids.txt"
  OMDB_API_KEY=bench "$fc" warm --db "$work/serve.sqlite" --base-url "http://127.0.0.1:$port/" --rate 0 \
    --daily-limit 100000000 --reserve 0 --max-in-flight "$inflight" --no-progress "$work/serve-ids.txt" >/dev/null
fi
startup_db="$work/serve.sqlite"
startup_id=$(head -n 1 "$work/serve-ids.txt")
# The cache's films and a tenth as many it does not hold: what `plan` sorts.
{ cat "$work/serve-ids.txt"; seq -f 'tt99%06g' 1 "$(($(wc -l <"$work/serve-ids.txt") / 10))"; } >"$work/startup-worklist.txt"
# Pair $1: hyperfine's median of the sqlite3 command $2 and of the filmcache command $3, and their ratio.
startup_pair() {
  env -u OMDB_API_KEY hyperfine -N --warmup 3 --runs 30 --export-json "$work/startup.json" "$2" "$3" >/dev/null 2>&1
  python3 - "$1" "$work/startup.json" <<'PY'
import json, sys
a, b = (r["median"] * 1000 for r in json.load(open(sys.argv[2]))["results"])
print(f"  {sys.argv[1]:<44} sqlite3 {a:7.1f} ms   filmcache {b:7.1f} ms   {b / a:5.2f} x   (goal <= 2)")
PY
}
startup_pair "show ID" \
  "sqlite3 -readonly $startup_db \"SELECT raw_json FROM films WHERE imdb_id = '$startup_id'\"" \
  "$fc show --db $startup_db $startup_id"
startup_pair "quota (no key: the busiest in the ledger)" \
  "sqlite3 -readonly $startup_db \"SELECT key_fingerprint, quota_day, used, daily_limit FROM quota_ledger ORDER BY quota_day DESC LIMIT 30; SELECT * FROM runs ORDER BY id DESC LIMIT 10\"" \
  "$fc quota --db $startup_db"
startup_pair "plan WORKLIST ($(wc -l <"$work/startup-worklist.txt") IDs, no key)" \
  "sqlite3 -readonly $startup_db -cmd \"CREATE TEMP TABLE w (id TEXT)\" -cmd \".import --schema temp $work/startup-worklist.txt w\" \"SELECT count(*) FROM w WHERE id NOT IN (SELECT imdb_id FROM films)\"" \
  "$fc plan --db $startup_db $work/startup-worklist.txt"
echo "  the key's slow hash (PBKDF2) where the ledger is read for the key (OMDB_API_KEY set):"
OMDB_API_KEY=bench hyperfine -N --warmup 3 --runs 30 --export-json "$work/startup.json" \
  "$fc quota --db $startup_db" >/dev/null 2>&1
python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["results"][0]["median"]; print(f"    filmcache quota with the key {m * 1000:7.1f} ms")' \
  "$work/startup.json"
fi # startup

if ! want pg; then
  [ "${BENCH_PG:-1}" = 0 ] && { echo; echo "== PostgreSQL: skipped (BENCH_PG=0) =="; }
  exit 0
fi

# A throwaway PostgreSQL 15 cluster on a free loopback port, password (SCRAM) auth over TCP; stopped by cleanup.
pg_dir=$(mktemp -d)
[ "$(id -u)" -eq 0 ] && chown postgres: "$pg_dir"
pg_port=$(free_port)
(cd / && as_pg "$pg_bin/initdb" -D "$pg_dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
  --encoding=UTF8 --locale=C >/dev/null)
{
  echo "listen_addresses = '127.0.0.1'"
  echo "port = $pg_port"
  echo "unix_socket_directories = '$pg_dir'"
  echo "log_min_messages = warning"
  if [ "${BENCH_PG_DURABLE:-1}" = 0 ]; then
    printf 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n'
  fi
} >>"$pg_dir/data/postgresql.conf"
(cd / && as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 60 start >/dev/null)
# As the superuser over the socket; statements on standard input or with -c.
pg_sql() {
  local db=$1
  shift
  (cd / && PGOPTIONS='-c client_min_messages=warning' as_pg "$pg_bin/psql" -X -q -A -t -v ON_ERROR_STOP=1 \
    -h "$pg_dir" -p "$pg_port" -U postgres -d "$db" "$@")
}
# filmcache reads the password from PGPASSWORD: never on a command line.
PGPASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
export PGPASSWORD
pg_sql postgres <<<"CREATE ROLE bench LOGIN PASSWORD '$PGPASSWORD'"
pg_url() { echo "postgresql://bench@127.0.0.1:$pg_port/$1"; }
pg_fresh() { pg_sql postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1 OWNER bench"; }
pg_settings=$(pg_sql postgres -c "SELECT format('PostgreSQL %s, fsync=%s, synchronous_commit=%s, '
  || 'full_page_writes=%s, shared_buffers=%s', current_setting('server_version'), current_setting('fsync'),
  current_setting('synchronous_commit'), current_setting('full_page_writes'), current_setting('shared_buffers'))")
if [ "${BENCH_PG_DURABLE:-1}" = 0 ]; then
  pg_label="NOT DURABLE (BENCH_PG_DURABLE=0, as the tests run it)"
else
  pg_label="Debian's defaults, durable"
fi
# A whole warm of ids.txt from nginx on port $2 into $1; sets w_s (wall seconds) and w_kb (peak RSS).
warm_into() {
  OMDB_API_KEY=bench /usr/bin/time -f "%e %M" -o "$work/w-time.txt" "$fc" warm --db "$1" \
    --base-url "http://127.0.0.1:${2:-$port}/" --max-in-flight "$inflight" --rate 0 --daily-limit 100000000 \
    --reserve 0 "$work/ids.txt" >"$work/w.txt"
  read -r w_s w_kb <"$work/w-time.txt"
}

echo
echo "== PostgreSQL vs SQLite: the whole warm of $count films from the same nginx into a fresh database =="
echo "   server: $pg_settings ($pg_label)"
echo "   (three rounds, each a warm into SQLite then one into PostgreSQL; medians; goal >= 0.7)"
pairs=""
for round in 1 2 3; do
  rm -f "$work/vs.sqlite"*
  warm_into "$work/vs.sqlite"
  sq_s=$w_s sq_kb=$w_kb
  rows=$(sqlite3 "$work/vs.sqlite" 'SELECT count(*) FROM films')
  [ "$rows" -eq "$count" ] || { echo "filmcache warm stored $rows of $count films in SQLite" >&2; exit 1; }
  pg_fresh warm
  warm_into "$(pg_url warm)"
  rows=$(pg_sql warm -c 'SELECT count(*) FROM films')
  [ "$rows" -eq "$count" ] || { echo "filmcache warm stored $rows of $count films in PostgreSQL" >&2; exit 1; }
  sq_rate=$(rate "$count" "$sq_s")
  pg_rate=$(rate "$count" "$w_s")
  printf '  round %d: SQLite %7s films/s (%.1f s, peak RSS %d MB), PostgreSQL %7s films/s (%.1f s, peak RSS %d MB), ratio %s\n' \
    "$round" "$sq_rate" "$sq_s" $((sq_kb / 1024)) "$pg_rate" "$w_s" $((w_kb / 1024)) "$(ratio "$pg_rate" "$sq_rate")"
  pairs="$pairs $sq_rate:$pg_rate"
done
read -r median_sq median_pg median_ratio <<<"$(medians $pairs)"
printf '  %-36s %8s films/s (median)\n' "filmcache warm into SQLite" "$median_sq" \
  "filmcache warm into PostgreSQL" "$median_pg"
echo "  ratio PostgreSQL/SQLite: $median_ratio (median of the rounds' ratios)"

echo
echo "== PostgreSQL: warms at once sharing one plan: the same $count IDs and key, a fresh database each =="
echo "   (separate processes; requests counted from nginx's log of this section, one ID a line)"
touch "$work/nginx/ids.log"
for warms in ${BENCH_PG_WARMS:-1 2 4}; do
  pg_fresh share
  before=$(wc -l <"$work/nginx/ids.log")
  pids=""
  t0=$(now)
  for i in $(seq 1 "$warms"); do
    OMDB_API_KEY=bench "$fc" warm --db "$(pg_url share)" --base-url "http://127.0.0.1:$log_port/" \
      --max-in-flight "$inflight" --rate 0 --daily-limit 100000000 --reserve 0 "$work/ids.txt" \
      >"$work/share-$i.txt" 2>&1 &
    pids="$pids $!"
  done
  for pid in $pids; do
    wait "$pid" || { echo "a warm of $warms failed:" >&2; cat "$work"/share-*.txt >&2; exit 1; }
  done
  t1=$(now)
  tail -n +$((before + 1)) "$work/nginx/ids.log" >"$work/ids-round.log"
  requests=$(wc -l <"$work/ids-round.log")
  distinct=$(cut -d' ' -f1 "$work/ids-round.log" | sort -u | wc -l)
  last=$(cut -d' ' -f2 "$work/ids-round.log" | sort -n | tail -n 1)
  stored=$(pg_sql share -c 'SELECT count(*) FROM films')
  [ "$stored" -eq "$count" ] || { echo "$warms warms stored $stored of $count films" >&2; exit 1; }
  [ "$distinct" -eq "$count" ] || { echo "$warms warms asked for $distinct of $count IDs" >&2; exit 1; }
  wall=$(python3 -c "print($t1-$t0)")
  fetching=$(python3 -c "print($last-$t0)")
  printf '  %d warm(s): %7s films/s to the last exit (%.1f s), %7s films/s to the last request (%.1f s); %d requests, %d IDs, duplicates %d; %d films stored\n' \
    "$warms" "$(rate "$count" "$wall")" "$wall" "$(rate "$count" "$fetching")" "$fetching" "$requests" "$distinct" \
    $((requests - distinct)) "$stored"
  pg_sql postgres -c "DROP DATABASE share"
done

pg_plan_rows=${BENCH_PG_PLAN_ROWS:-1000000}
pg_plan_ids=${BENCH_PG_PLAN_IDS:-100000}
echo
echo "== PostgreSQL plan: a $pg_plan_ids-ID worklist over a $pg_plan_rows-row cache (goal < 2 s) =="
pg_fresh plan
"$bin/filmcache-bench" fill --db "$(pg_url plan)" --rows "$pg_plan_rows" | sed 's/^/  importFilms: /'
# What autovacuum does for a cache that grew over nights, at once.
pg_sql plan -c 'VACUUM ANALYZE'
plan_worklist "$pg_plan_rows" "$pg_plan_ids" "$work/pg-plan-ids.txt"
plan_runs "$(pg_url plan)" "$work/pg-plan-ids.txt"
