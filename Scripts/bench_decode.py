#!/usr/bin/env python3
"""Reference for the decode benchmark: Python's json.loads on the same OMDb bodies.

Usage: bench_decode.py DIR [SECONDS]
Loads every *.json in DIR into memory as bytes, then calls json.loads on them
round-robin for SECONDS (default 3) on one thread and prints one line:
    python json.loads: N objects/s
"""
import json
import pathlib
import sys
import time


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 64
    directory = pathlib.Path(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) == 3 else 3.0
    bodies = [path.read_bytes() for path in sorted(directory.glob("*.json"))]
    if not bodies:
        print(f"no *.json files in {directory}", file=sys.stderr)
        return 66
    loads = json.loads
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for body in bodies:
            loads(body)
        count += len(bodies)
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    print(f"python json.loads: {count / elapsed:.0f} objects/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
