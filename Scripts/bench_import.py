#!/usr/bin/env python3
"""Reference for filmcache's import benchmark: Python reading the file `filmcache export` wrote.

Each line of a JSON Lines export is read with json.loads (each record of a CSV export with the
csv module) and turned into a row of `films`; rows are upserted with sqlite3 executemany of an
INSERT ... ON CONFLICT DO UPDATE ... WHERE the row is newer (the newer fetched_at wins), batches of
BATCH (1000) in one transaction each, journal_mode=WAL and synchronous=NORMAL, into OUT_DB: a copy
of an empty cache filmcache created, so the schema and its indexes are the same. Run it under
/usr/bin/time: the whole process is what is compared.

usage: bench_import.py FILE OUT_DB [BATCH]
"""
import csv
import json
import sqlite3
import sys

path, out = sys.argv[1], sys.argv[2]
batch = int(sys.argv[3]) if len(sys.argv) > 3 else 1000

# The export line's keys for each column of `films`, in the table's order.
KEYS = {
    "imdb_id": "imdbID", "title": "title", "type": "type", "year_start": "yearStart", "year_end": "yearEnd",
    "rated": "rated", "released": "released", "runtime_minutes": "runtimeMinutes", "genres": "genres",
    "directors": "directors", "writers": "writers", "actors": "actors", "languages": "languages",
    "countries": "countries", "plot": "plot", "awards": "awards", "poster_url": "posterURL",
    "imdb_rating": "imdbRating", "imdb_votes": "imdbVotes", "metascore": "metascore", "ratings": "ratings",
    "box_office_usd": "boxOfficeUSD", "total_seasons": "totalSeasons", "season": "season", "episode": "episode",
    "series_id": "seriesID", "dvd": "dvd", "production": "production", "website": "website",
    "raw_json": "rawJSON", "fetched_at": "lastFetched", "data_version": "dataVersion",
}
LISTS = {"genres", "directors", "writers", "actors", "languages", "countries", "ratings"}

db = sqlite3.connect(out, isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = NORMAL")
columns = [row[1] for row in db.execute("PRAGMA table_info(films)")]
updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
sql = (f"INSERT INTO films ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}) "
       f"ON CONFLICT (imdb_id) DO UPDATE SET {updates} WHERE excluded.fetched_at > films.fetched_at")


def json_rows(file):
    keys = [(KEYS[c], c in LISTS) for c in columns]
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    for line in file:
        if not line.strip():
            continue
        film = json.loads(line)
        yield tuple(dumps(film[k]) if is_list else film[k] for k, is_list in keys)


def csv_rows(file):
    reader = csv.reader(file)
    header = next(reader)
    at = [header.index(c) for c in columns]
    for record in reader:
        yield tuple(record[i] if record[i] != "" else None for i in at)


rows = 0
pending = []
with open(path, newline="", encoding="utf-8") as file:
    first = file.read(1)
    file.seek(0)
    for row in (json_rows if first == "{" else csv_rows)(file):
        pending.append(row)
        if len(pending) == batch:
            db.execute("BEGIN IMMEDIATE")
            db.executemany(sql, pending)
            db.execute("COMMIT")
            rows += len(pending)
            pending.clear()
if pending:
    db.execute("BEGIN IMMEDIATE")
    db.executemany(sql, pending)
    db.execute("COMMIT")
    rows += len(pending)
db.close()
print(rows)
