#!/usr/bin/env bash
# make test-package: build the package twice (revision 1, then 2), check it with lintian, promtool and
# systemd-analyze, make a bare Debian 12 root with debootstrap, install revision 1 there with apt, and
# check it in the root: commands, man pages, completions, ldd, a warm against the stand-in, readers,
# an upgrade to revision 2 that keeps an edited conffile, the cache and the ledger, the shell blocks of
# README.md and docs/OPERATING.md, and remove and purge. Runs as root (debootstrap, chroot, mounts).
#
# PACKAGE_ROOT_TARBALL=FILE keeps debootstrap's download between local runs (made when absent);
# CI leaves it unset and starts from the archive.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
started=$(date +%s)
step() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - started))"; }

[ "$(id -u)" -eq 0 ] || { echo "make test-package runs as root (debootstrap, chroot)" >&2; exit 1; }
version=$(sed -n 's/.*static let current = "\([^"]*\)".*/\1/p' Sources/FilmCacheKit/FilmCacheVersion.swift)

step "build the package (revision 1 and 2)"
if [ -z "${PACKAGE_REUSE_DEBS:-}" ]; then # PACKAGE_REUSE_DEBS=1: the .debs in dist/ as they are (local reruns)
  rm -f dist/filmcache_* dist/filmcache-dbgsym_*
  DEB_REVISION=1 Scripts/build-deb.sh
  # The second only to install over the first: compressed the quick way.
  DEB_REVISION=2 DEB_COMPRESSION=gzip Scripts/build-deb.sh
fi
first=dist/filmcache_${version}-1_amd64.deb
second=dist/filmcache_${version}-2_amd64.deb
ls -l dist/

step "lintian"
lintian --fail-on error --display-info --tag-display-limit 0 "$first" dist/filmcache-dbgsym_${version}-1_amd64.deb

step "promtool check rules, the dashboard's JSON"
promtool check rules Packaging/monitoring/filmcache.rules.yml
python3 -m json.tool Packaging/monitoring/filmcache-grafana.json >/dev/null

step "a bare Debian 12 root"
# The host's Debian mirror (deb822 or one-line sources), else Debian's own.
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
security=${mirror%/debian}/debian-security
root=$(mktemp -d /var/tmp/filmcache-root.XXXXXX)
chmod 0755 "$root" # the root's /: mktemp makes it root's alone, and the checks run as other users too
mounted=()
cleanup() {
  local status=$?
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  # Only remove the root once nothing is mounted in it any more.
  if ! grep -q " $root/" /proc/mounts; then rm -rf "$root"; fi
  printf '\ntest-package: %s after %ss\n' "$([ $status -eq 0 ] && echo passed || echo FAILED)" "$(($(date +%s) - started))"
}
trap cleanup EXIT
trap 'exit 143' INT TERM HUP # a stopped run unmounts too
if [ -n "${PACKAGE_ROOT_TARBALL:-}" ]; then
  [ -f "$PACKAGE_ROOT_TARBALL" ] ||
    debootstrap --variant=minbase --make-tarball="$PACKAGE_ROOT_TARBALL" bookworm "$root.tar-work" "$mirror"
  rm -rf "$root.tar-work"
  debootstrap --variant=minbase --unpack-tarball="$(realpath "$PACKAGE_ROOT_TARBALL")" bookworm "$root" "$mirror"
else
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi
for fs in proc sys dev dev/pts; do
  case $fs in
  proc) mount -t proc proc "$root/proc" ;;
  sys) mount -t sysfs sys "$root/sys" ;;
  *) mount --bind "/$fs" "$root/$fs" ;;
  esac
  mounted+=("$root/$fs")
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
# No daemon starts inside the root (the postinst never starts one; this is for the dependencies).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 0755 "$root/usr/sbin/policy-rc.d"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive "$@"; }

step "install revision 1 with apt (Depends from the archive)"
mkdir -p "$root/root/dist"
cp "$first" "$root/root/"
in_root apt-get update -qq
in_root apt-get install -y -qq --no-install-recommends /root/"$(basename "$first")" >/dev/null
in_root dpkg-query -W -f='${Package} ${Version} ${Depends}\n' filmcache
in_root sh -c 'ls -la /var/lib/filmcache /etc/filmcache; getent passwd filmcache'

step "checks in the root"
install -m 0755 Scripts/package-checks.sh "$root/root/package-checks.sh"
in_root bash /root/package-checks.sh install "$version-1"

step "the installed binaries export no symbol (Packaging/local-symbols.map)"
# Outside the root, which has no binutils: the Swift runtime's dladdr at start reads every exported symbol.
for binary in "$root/usr/bin/filmcache" "$root/usr/bin/omdb-standin"; do
  exported=$(readelf -W --dyn-syms "$binary" | awk 'NR > 3 && $7 != "UND"' | wc -l)
  [ "$exported" -eq 0 ] || { echo "$binary exports $exported symbols" >&2; exit 1; }
done

step "the installed binaries' relative relocations are packed (DT_RELR), and the package asks for a libc that reads them"
for binary in "$root/usr/bin/filmcache" "$root/usr/bin/omdb-standin"; do
  [[ $(readelf -d "$binary") == *'(RELR)'* ]] || { echo "$binary has no DT_RELR (Scripts/build-deb.sh links with lld)" >&2; exit 1; }
done
[[ $(dpkg-deb -f "$first" Depends) == *'libc6 (>= 2.36)'* ]] || { echo "Depends lacks libc6 (>= 2.36)" >&2; exit 1; }

step "the functions the commands run lie side by side at the start of filmcache's code (Packaging/filmcache.order)"
# The symbols are in the -dbgsym package's debug file, found by the installed binary's build ID; unpacked
# under the root, which the cleanup removes.
symbols="$root/tmp/filmcache-dbgsym"
dpkg-deb -x "dist/filmcache-dbgsym_${version}-1_amd64.deb" "$symbols"
build_id=$(readelf -n "$root/usr/bin/filmcache" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
python3 Scripts/check-symbol-order.py Packaging/filmcache.order \
  "$symbols/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
rm -rf "$symbols"

step "systemd-analyze verify on the installed units"
# Outside the root (no systemd runs in it), against its files: ExecStart= and the man pages resolve there.
SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no --root="$root" \
  /lib/systemd/system/filmcache-warm.service /lib/systemd/system/filmcache-warm.timer \
  /lib/systemd/system/filmcache-serve.service

step "upgrade to revision 2 over an edited conffile, the cache and the ledger"
cp "$second" "$root/root/dist/"
in_root bash /root/package-checks.sh before-upgrade "$version-1"
in_root apt-get install -y -qq --no-install-recommends /root/dist/"$(basename "$second")" >/dev/null
in_root bash /root/package-checks.sh after-upgrade "$version-2"

step "the shell blocks of README.md and docs/OPERATING.md"
python3 Scripts/doc-blocks.py README.md docs/OPERATING.md >"$root/root/doc-blocks.sh"
python3 Scripts/doc-blocks.py --units README.md docs/OPERATING.md | while read -r unit; do
  [ -f "$root/lib/systemd/system/$unit" ] || { echo "the docs name $unit, which the package does not install" >&2; exit 1; }
done
in_root timeout 900 bash -c 'cd /root && bash /root/doc-blocks.sh'

step "remove keeps configuration and cache; purge deletes them"
in_root bash /root/package-checks.sh remove-purge "$version-2"

step "sizes"
ls -l dist/*.deb
dpkg-deb -f "$second" Installed-Size Depends
