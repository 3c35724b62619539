#!/usr/bin/env python3
"""Scripts/check-symbol-order.py ORDER BINARY: checks that BINARY (or its debug file: any ELF file with
its symbol table) lays out the functions ORDER names at the start of its code, as Scripts/build-deb.sh
links it (-function-sections and --symbol-ordering-file).

Of the functions ORDER names that the binary defines, nearly all must lie in the first third of .text.
A few may not: a function that shares its section with code the file does not name (C code compiled
without function sections) is placed where that section is. Left in SwiftPM's layout, they are spread
over the whole of .text (5,889 of 10,001 past that line); ordered without -function-sections, each
source file's code moves whole and 2,797 of 10,034 are past it. Exits 1, saying how many lie past that
line, when the layout is not there, and when ORDER names fewer than 1,000 functions."""
import subprocess
import sys

order_path, binary = sys.argv[1], sys.argv[2]
named = [line.strip() for line in open(order_path, encoding="utf-8") if line.strip()]

text_start = text_size = None
for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    fields = line.replace("[", " ").replace("]", " ").split()
    if len(fields) > 5 and fields[1] == ".text":
        text_start, text_size = int(fields[3], 16), int(fields[5], 16)
if text_start is None:
    sys.exit(f"check-symbol-order: {binary} has no .text")

where = {}
nm = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
for line in nm.splitlines():
    fields = line.split(" ", 2)
    if len(fields) == 3 and fields[1] in "tTwW":
        where[fields[2]] = int(fields[0], 16)

# A file that names few functions checks nothing (Scripts/symbol-order.sh refuses to write one).
if len(named) < 1000:
    sys.exit(f"check-symbol-order: {order_path} names {len(named)} functions: remake it (make symbol-order)")
found = [where[name] for name in named if name in where]
if len(found) < len(named) // 2:
    sys.exit(f"check-symbol-order: {binary} defines {len(found)} of the {len(named)} functions {order_path} names: "
             "no symbol table, or a file made for much older code (make symbol-order remakes it)")
line = text_start + text_size // 3
past = sum(1 for address in found if address >= line)
print(f"{len(found)} of {len(named)} functions named in {order_path}: {past} past the first third of "
      f"{text_size / 1e6:.1f} MB of code")
if past > len(found) // 50:
    sys.exit(f"check-symbol-order: {past} of them lie past it (2% may): {binary} is not laid out by {order_path}")
