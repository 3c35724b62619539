#!/usr/bin/env python3
"""Reference for filmcache's upsert benchmark: Python's sqlite3 executemany of the same rows.

Reads every row of `films` from the cache file filmcache-bench upsert wrote (untimed), creates
a new file with the same `films` schema and the same pragmas (WAL, synchronous=NORMAL), and
times executemany of an INSERT ... ON CONFLICT DO UPDATE in batches, one transaction each:
first into the empty table (inserts), then the same rows again (updates).

usage: bench_upsert.py SOURCE_DB OUT_DB [BATCH]
"""
import os
import sqlite3
import sys
import time

source, out = sys.argv[1], sys.argv[2]
batch = int(sys.argv[3]) if len(sys.argv) > 3 else 256

src = sqlite3.connect(source)
schema = src.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'films'").fetchone()[0]
columns = [row[1] for row in src.execute("PRAGMA table_info(films)")]
rows = src.execute(f"SELECT {', '.join(columns)} FROM films").fetchall()
src.close()

for suffix in ("", "-wal", "-shm"):
    if os.path.exists(out + suffix):
        os.remove(out + suffix)
db = sqlite3.connect(out, isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = NORMAL")
db.execute(schema)
updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
sql = (f"INSERT INTO films ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}) "
       f"ON CONFLICT (imdb_id) DO UPDATE SET {updates}")
for label in ("insert", "update"):
    start = time.perf_counter()
    for i in range(0, len(rows), batch):
        db.execute("BEGIN IMMEDIATE")
        db.executemany(sql, rows[i:i + batch])
        db.execute("COMMIT")
    elapsed = time.perf_counter() - start
    print(f"python sqlite3 executemany ({label}): {len(rows)} rows in {elapsed:.3f} s = {len(rows) / elapsed:.0f} rows/s")
db.close()
