#!/usr/bin/env bash
# make bench: filmcache's stages side by side with their reference runs, on this machine, in one go.
#   fetch   filmcache-bench fetch (libcurl multi from Swift) vs curl --parallel --parallel-max 32,
#           same URLs, same nginx serving the generated corpus from files
#   warm    the whole filmcache warm (fetch + decode + normalize + upsert) vs the same curl run,
#           with peak RSS from /usr/bin/time -v
#   upsert  normalized films into a fresh cache (then again, as updates) vs Python's sqlite3 executemany
#           of the same rows into the same schema
#   plan    `filmcache plan` of a BENCH_PLAN_IDS (100000) worklist over a BENCH_PLAN_ROWS (1000000) cache
#   export  `filmcache export` of that cache (JSON Lines, then CSV) and `filmcache import` of each file into a
#           fresh cache: films/s and peak RSS, which should stay flat whatever the size
#   rate    the rate gate on the real clock for BENCH_RATE_SECONDS (60): achieved rate, busiest second
#   memory  whole warms of 10,000 and 100,000 IDs (BENCH_RSS_SIZES): peak RSS should stay flat
#   posters `filmcache posters` of BENCH_POSTERS (5000) images from nginx into a store vs curl --parallel
#           writing the same files; then the revalidation pass (304s)
# Sizes: BENCH_FILMS (default 20000), BENCH_IN_FLIGHT (32).
set -euo pipefail
cd "$(dirname "$0")/.."
films=${BENCH_FILMS:-20000}
inflight=${BENCH_IN_FLIGHT:-32}
swift build -c release >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
chmod 755 "$work" # nginx's worker runs as nobody and must read the corpus
nginx_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

rss_sizes=${BENCH_RSS_SIZES:-10000 100000}
corpus=$films
for size in $rss_sizes; do [ "$size" -gt "$corpus" ] && corpus=$size; done
echo "generating $corpus films (seed 7)…"
"$bin/omdb-standin" generate --count "$corpus" --seed 7 --out "$work/films" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
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
rate() { python3 -c "import sys; n,t=float(sys.argv[1]),float(sys.argv[2]); print(f'{n/t:.0f}')" "$1" "$2"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }

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

echo
echo "== decode + normalize: one core, the same $count bodies in memory =="
py_rate=$(python3 Scripts/bench_decode.py "$work/sample" 3 | sed -n 's/.*: \([0-9]*\) objects\/s/\1/p')
dec_rate=$("$bin/filmcache-bench" decode --corpus "$work/sample" --seconds 3 | sed -n 's/.*: \([0-9]*\) films\/s/\1/p')
printf '  %-36s %8s objects/s\n' "python3 json.loads (decode only)" "$py_rate"
printf '  %-36s %8s films/s\n' "filmcache decode + normalize" "$dec_rate"
echo "  ratio filmcache/python: $(ratio "$dec_rate" "$py_rate")"

echo
echo "== warm end to end: fetch + decode + normalize + upsert into a fresh DB =="
echo "   (three rounds, each curl --parallel then filmcache warm, so both see the same machine; medians)"
pairs=""
for round in 1 2 3; do
  t0=$(now)
  curl -s --parallel --parallel-max "$inflight" --config "$work/curl.cfg" -o /dev/null 2>/dev/null
  t1=$(now)
  rm -f "$work/bench.sqlite"*
  OMDB_API_KEY=bench /usr/bin/time -v -o "$work/time.txt" "$bin/filmcache" warm --db "$work/bench.sqlite" \
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
read -r median_curl median_warm median_ratio <<<"$(python3 -c '
import statistics, sys
pairs = [tuple(map(float, p.split(":"))) for p in sys.argv[1:]]
print(int(statistics.median(c for c, _ in pairs)), int(statistics.median(w for _, w in pairs)),
      f"{statistics.median(w / c for c, w in pairs):.2f}")' $pairs)"
printf '  %-36s %8s req/s (median)\n' "curl --parallel --parallel-max $inflight" "$median_curl"
printf '  %-36s %8s films/s (median)\n' "filmcache warm" "$median_warm"
echo "  ratio filmcache warm / curl fetch-only: $median_ratio (median of the rounds' ratios)"

echo
posters=${BENCH_POSTERS:-5000}
echo "== posters: $posters images (8-24 KiB) from nginx, $inflight in flight, no rate limit =="
cp "$work/bench.sqlite" "$work/posters.sqlite"
posters=$(python3 Scripts/bench_posters.py "$work/posters.sqlite" "$work/p" "http://127.0.0.1:$port/p/" "$posters")
sqlite3 "$work/posters.sqlite" "SELECT poster_url FROM films WHERE poster_url IS NOT NULL" \
  | awk -v d="$work/curl-posters" '{ n = split($0, a, "/"); printf "url = \"%s\"\noutput = \"%s/%s\"\n", $0, d, a[n] }' \
  >"$work/posters.cfg"
mkdir -p "$work/curl-posters"
t0=$(now)
curl -s --parallel --parallel-max "$inflight" --config "$work/posters.cfg" 2>/dev/null
t1=$(now)
curl_posters=$(rate "$posters" "$(python3 -c "print($t1-$t0)")")
t0=$(now)
"$bin/filmcache" posters --db "$work/posters.sqlite" --store "$work/store" --poster-rate 0 \
  --poster-max-in-flight "$inflight" >"$work/posters.txt"
t1=$(now)
stored=$(sqlite3 "$work/posters.sqlite" "SELECT count(*) FROM posters WHERE status = 'stored'")
[ "$stored" -eq "$posters" ] || { echo "filmcache posters stored $stored of $posters" >&2; exit 1; }
fc_posters=$(rate "$posters" "$(python3 -c "print($t1-$t0)")")
t0=$(now)
"$bin/filmcache" posters --db "$work/posters.sqlite" --store "$work/store" --poster-rate 0 \
  --poster-max-in-flight "$inflight" --poster-revalidate-days 0 >"$work/posters2.txt"
t1=$(now)
grep -q "not modified $posters" "$work/posters2.txt" || { echo "revalidation: $(cat "$work/posters2.txt")" >&2; exit 1; }
fc_revalidate=$(rate "$posters" "$(python3 -c "print($t1-$t0)")")
printf '  %-36s %8s posters/s\n' "curl --parallel --parallel-max $inflight" "$curl_posters" \
  "filmcache posters (check, hash, store)" "$fc_posters" "filmcache posters, revalidation (304)" "$fc_revalidate"
echo "  ratio filmcache/curl: $(ratio "$fc_posters" "$curl_posters")"

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

plan_rows=${BENCH_PLAN_ROWS:-1000000}
plan_ids=${BENCH_PLAN_IDS:-100000}
echo
echo "== plan: a $plan_ids-ID worklist over a $plan_rows-row cache (goal < 2 s) =="
"$bin/filmcache-bench" fill --db "$work/plan.sqlite" --rows "$plan_rows" | sed 's/^/  /'
python3 - "$plan_rows" "$plan_ids" "$work/plan-ids.txt" <<'PY'
import random, sys
rows, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
r = random.Random(5)
known = r.sample(range(1, rows + 1), min(rows, n * 9 // 10))
ids = [f"tt{i:08d}" for i in known] + [f"tt{rows + 1 + i:08d}" for i in range(n - len(known))]
r.shuffle(ids)
open(out, "w").write("\n".join(ids) + "\n")
PY
for run in 1 2 3; do
  /usr/bin/time -f "%e %M" -o "$work/plan-time.txt" "$bin/filmcache" plan --db "$work/plan.sqlite" --json \
    "$work/plan-ids.txt" >"$work/plan.json"
  read -r plan_s plan_kb <"$work/plan-time.txt"
  printf '  run %d: filmcache plan %s s wall, peak RSS %d MB (considered %s, fresh %s, due %s)\n' "$run" "$plan_s" \
    $((plan_kb / 1024)) "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["considered"])' "$work/plan.json")" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["fresh"])' "$work/plan.json")" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["toFetch"] + d["deferred"])' "$work/plan.json")"
done

echo
echo "== export and import: the $plan_rows-film cache out to a file and back into a fresh one =="
for format in jsonl csv; do
  /usr/bin/time -f "%e %M" -o "$work/export-time.txt" "$bin/filmcache" export --db "$work/plan.sqlite" \
    --format "$format" >"$work/export.$format"
  read -r export_s export_kb <"$work/export-time.txt"
  rm -f "$work/import.sqlite"*
  /usr/bin/time -f "%e %M" -o "$work/import-time.txt" "$bin/filmcache" import --db "$work/import.sqlite" \
    "$work/export.$format" >/dev/null
  read -r import_s import_kb <"$work/import-time.txt"
  imported=$(sqlite3 "$work/import.sqlite" 'SELECT count(*) FROM films')
  [ "$imported" -eq "$plan_rows" ] || { echo "import of $format stored $imported of $plan_rows films" >&2; exit 1; }
  printf '  %-5s export %6.1f s, %7s films/s, peak RSS %d MB, %d MB file; import %6.1f s, %7s films/s, peak RSS %d MB\n' \
    "$format" "$export_s" "$(rate "$plan_rows" "$export_s")" $((export_kb / 1024)) \
    $(($(stat -c %s "$work/export.$format") / 1048576)) "$import_s" "$(rate "$plan_rows" "$import_s")" $((import_kb / 1024))
  rm -f "$work/export.$format" "$work/import.sqlite"*
done

echo
echo "== memory: whole warms into fresh DBs as the worklist grows (goal: peak RSS < 48 MB, flat) =="
for size in $rss_sizes; do
  head -n "$size" "$work/all-ids.txt" >"$work/rss-ids.txt"
  rm -f "$work/rss.sqlite"*
  OMDB_API_KEY=bench /usr/bin/time -f "%e %M" -o "$work/rss-time.txt" "$bin/filmcache" warm --db "$work/rss.sqlite" \
    --base-url "http://127.0.0.1:$port/" --max-in-flight "$inflight" --rate 0 --daily-limit 100000000 --reserve 0 \
    "$work/rss-ids.txt" >/dev/null
  read -r rss_s rss_kb <"$work/rss-time.txt"
  rss_rows=$(sqlite3 "$work/rss.sqlite" 'SELECT count(*) FROM films')
  printf '  %7d IDs: %7s films stored, %6.1f s, %6s films/s, peak RSS %d MB\n' "$size" "$rss_rows" "$rss_s" \
    "$(rate "$size" "$rss_s")" $((rss_kb / 1024))
done

rate_seconds=${BENCH_RATE_SECONDS:-60}
echo
echo "== rate limiter on the real clock: 20 req/s, burst 5, 32 eager callers, $rate_seconds s =="
echo "  $("$bin/filmcache-bench" rate --rate 20 --burst 5 --seconds "$rate_seconds")"
