#!/usr/bin/env bash
# One time source: below the commands (Sources/filmcache), nothing reads the time or sleeps on its own.
# Every wait and instant comes from the TimeSource the command hands down (FilmCacheKit/Support/TimeSource.swift),
# so every policy runs on a manual clock in tests. Exempt: the two files that define the system's clocks, and
# the test tools that are programs of their own (the OMDb stand-in, the throwaway PostgreSQL server, the bench).
# Prints each offending line and exits 1 when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='Date\(\)|Date\.now|Task\.sleep|ContinuousClock\(\)|ContinuousClock\.now|SuspendingClock|\.continuous\b'
found=$(grep -rnE "$pattern" Sources --include='*.swift' \
  --exclude-dir=filmcache --exclude-dir=omdb-standin --exclude-dir=OMDbStandIn \
  --exclude-dir=filmcache-bench --exclude-dir=PostgresScratch \
  | grep -vE '^Sources/FilmCacheKit/Support/(TimeSource|WallClock)\.swift:' \
  | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
if [ -n "$found" ]; then
  echo "check-time: below the commands, time comes only from the TimeSource handed down; found:" >&2
  echo "$found" >&2
  exit 1
fi
echo "check-time: no clock made, time read or sleep taken below the commands"
