#!/usr/bin/env bash
# Installs the Debian packages filmcache builds, tests and benchmarks with, when any is missing.
set -euo pipefail

# python3-prometheus-client: the end-to-end tests check the metrics file with the Prometheus project's own parser.
# libssl-dev: libcrypto's PBKDF2 names API keys in the ledger (a slow keyed hash, never the key).
# libstdc++-12-dev: TOMLKit (job files) compiles the C++ toml++ library.
# postgresql: the PostgreSQL 15 server the PostgreSQL backend's tests start a throwaway cluster of (initdb, pg_ctl,
# psql under /usr/lib/postgresql/15/bin); without it those tests fail, they are never skipped.
# iproute2: `ip netns`, the network namespaces the several-hosts tests run each warm in.
# wrk: the load generator `make bench` measures `filmcache serve`'s hit path with.
# procps: pgrep, with which `make bench` finds the warm whose memory it samples.
# chromium: the headless browser the dashboard test of `filmcache serve` renders its page in.
wanted=(libcurl4-openssl-dev libssl-dev libstdc++-12-dev libsqlite3-dev pkg-config sqlite3 curl nginx-light time python3 python3-prometheus-client postgresql iproute2 chromium wrk procps)
# --package: what `make deb` and `make test-package` add. dpkg-dev: dpkg-shlibdeps, dpkg-gencontrol, dpkg-deb;
# binutils: objcopy and readelf (stripping, build IDs); debootstrap: the bare Debian 12 root the package is
# installed into; lintian; prometheus: promtool checks the alert rules; systemd: systemd-analyze verify on the
# units; man-db: man renders the pages; hyperfine: start-up times; valgrind: `make symbol-order` traces the commands.
if [ "${1:-}" = "--package" ]; then
  wanted=(dpkg-dev binutils debootstrap lintian prometheus systemd man-db hyperfine fakeroot valgrind)
fi
missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
