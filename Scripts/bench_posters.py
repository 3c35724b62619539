"""Prepares the poster benchmark: an image file per film and the cache's poster URLs pointing at nginx.

usage: bench_posters.py CACHE.sqlite IMAGE_DIR BASE_URL COUNT

Keeps the poster URL of the first COUNT films that have one (NULL for the rest), writes a
JPEG-signed file of 8 to 24 KiB for each under IMAGE_DIR, named by the URL's last part, and
points the URL at BASE_URL + that name.
"""
import os
import random
import sqlite3
import sys

db, image_dir, base, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
os.makedirs(image_dir, exist_ok=True)
rng = random.Random(7)
con = sqlite3.connect(db)
rows = con.execute("SELECT imdb_id, poster_url FROM films WHERE poster_url IS NOT NULL ORDER BY imdb_id").fetchall()
keep = rows[:count]
con.execute("UPDATE films SET poster_url = NULL")
for imdb_id, url in keep:
    name = url.rsplit("/", 1)[-1]
    size = 8192 + rng.randrange(16384)
    with open(os.path.join(image_dir, name), "wb") as f:
        f.write(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
        f.write(rng.randbytes(size) + b"\xff\xd9")
    con.execute("UPDATE films SET poster_url = ? WHERE imdb_id = ?", (base + name, imdb_id))
con.commit()
print(len(keep))
