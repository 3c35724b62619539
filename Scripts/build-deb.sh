#!/usr/bin/env bash
# Builds dist/filmcache_<version>-<revision>_amd64.deb (and its -dbgsym), or with `--dist` the
# same tree as dist/filmcache-<version>-linux-amd64.tar.gz for other distributions.
#
# Debian's own tools, without debian/rules: the binaries come from an ordinary
# `swift build -c release --static-swift-stdlib` (the Swift toolchain is not a Debian package,
# so it cannot be a Build-Depends, and dpkg-buildpackage's clean and build steps would only wrap
# that one command). The tree is staged here, then dpkg-shlibdeps computes Depends,
# dpkg-gencontrol writes the control file (Installed-Size included) and dpkg-deb builds the
# archive, as debhelper's dh_shlibdeps, dh_gencontrol and dh_builddeb would.
#
# The version is FilmCacheVersion.current, what `filmcache --version` prints; DEB_REVISION
# (default 1) is the Debian revision, raised for a new package of the same release.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=deb
[ "${1:-}" = "--dist" ] && mode=dist

version=$(sed -n 's/.*static let current = "\([^"]*\)".*/\1/p' Sources/FilmCacheKit/FilmCacheVersion.swift)
[ -n "$version" ] || { echo "no version in Sources/FilmCacheKit/FilmCacheVersion.swift" >&2; exit 1; }
revision=${DEB_REVISION:-1}
debversion="$version-$revision"
scratch=${STATIC_SCRATCH:-.build-static}
SWIFT=${SWIFT:-swift}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

# The binaries: the Swift runtime linked in, so only Debian's libraries are loaded at run time; no
# $ORIGIN run path (nothing is loaded from beside the binary); bound at start-up (-z now) as Debian's
# hardening flags ask; no symbol exported (Packaging/local-symbols.map says why).
build=(-c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now
  -Xlinker "--version-script=$PWD/Packaging/local-symbols.map" --scratch-path "$scratch")
# libstdc++ (the Swift runtime's and toml++'s) linked in too, from its archive: a linker script named
# libstdc++.so that names libstdc++.a, in a directory searched before the compiler's (SwiftPM hands
# `-Xlinker -L…` to swiftc as a -L of its own, ahead of the toolchain's; package-checks.sh checks that
# ldd finds no libstdc++). Loaded as a shared library it had its 4,309 symbols bound at every start
# (-z now): a fifth of `show`'s instructions. The GCC Runtime Library Exception allows it
# (Packaging/copyright). The toolchain's clang (beside swift, its links followed) names the archive.
clang=$(dirname "$(readlink -f "$(command -v "$SWIFT" || echo swift)")")/clang
[ -x "$clang" ] || clang=clang
stdcxx=$("$clang" -print-file-name=libstdc++.a)
[ -f "$stdcxx" ] || { echo "no libstdc++.a ($stdcxx): install libstdc++-12-dev" >&2; exit 1; }
mkdir -p "$scratch/static-libstdc++"
stdcxx_dir=$(CDPATH='' cd -- "$scratch/static-libstdc++" >/dev/null && pwd)
echo "INPUT(\"$stdcxx\")" >"$stdcxx_dir/libstdc++.so"
build+=(-Xlinker "-L$stdcxx_dir")
# Linked by the toolchain's lld, its relative relocations packed (DT_RELR, glibc 2.36, as Debian 12
# has): the loader reads 26 KB of them at start, not 3.2 MB of RELA entries (132,000 of them), and
# those pages stayed resident: a warm peaks 2–3 MB lower. Gold, Swift's default, cannot pack them.
build+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
# Each Swift function in a section of its own, and the functions the commands run laid out side by side
# at the start of .text, in Packaging/filmcache.order's order (Scripts/symbol-order.sh makes it; `make
# symbol-order`). Left in SwiftPM's layout, one section a source file, the code a warm runs was spread
# over the binary's 31 MB of code: the kernel maps 64 KB of file around each page fault, so a warm held
# 14 MB of code resident, and each start faulted in pages it did not need. A function the file does not
# name (one added since it was made) goes after those it names: the layout ages, the link stays right.
build+=(-Xswiftc -Xfrontend -Xswiftc -function-sections
  -Xlinker "--symbol-ordering-file=$PWD/Packaging/filmcache.order" -Xlinker --no-warn-symbol-ordering)
# SwiftPM does not know that the link reads Packaging/filmcache.order: the binaries are relinked every
# time, so a new file takes effect (a link is seconds).
rm -f "$scratch/release/filmcache" "$scratch/release/omdb-standin"
for product in filmcache omdb-standin; do
  $SWIFT build "${build[@]}" --product "$product"
done
bin=$($SWIFT build "${build[@]}" --show-bin-path)
built=$("$bin/filmcache" --version)
[ "$built" = "$version" ] || { echo "filmcache --version says $built, FilmCacheVersion.swift $version" >&2; exit 1; }

# swift-argument-parser's manual generator: the tool its generate-manual plugin runs. The plugin
# itself rebuilds every product in a release build of its own (without --static-swift-stdlib);
# running its tool on the binaries built above gives the same pages from the same help text.
manual_tool=.build-manual/release/generate-manual
if [ ! -x "$manual_tool" ]; then
  $SWIFT build -c release --package-path "$scratch/checkouts/swift-argument-parser" \
    --scratch-path .build-manual --product generate-manual
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/filmcache"
dbg="$work/filmcache-dbgsym"
mkdir -p "$root" "$dbg"

# Stripped binaries; their symbols in /usr/lib/debug/.build-id, linked back by build ID and debuglink.
install -d "$root/usr/bin"
for product in filmcache omdb-standin; do
  cp "$bin/$product" "$work/$product.full"
  build_id=$(readelf -n "$work/$product.full" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
  [ -n "$build_id" ] || { echo "$product has no build ID" >&2; exit 1; }
  debug_file="$dbg/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
  install -d "$(dirname "$debug_file")"
  objcopy --only-keep-debug --compress-debug-sections "$work/$product.full" "$debug_file"
  chmod 0644 "$debug_file"
  objcopy --remove-section=.comment --remove-section=.note --strip-all \
    --add-gnu-debuglink="$debug_file" "$work/$product.full" "$root/usr/bin/$product"
  chmod 0755 "$root/usr/bin/$product"
  echo "$build_id" >>"$work/build-ids"
done

# Manual pages for each command and subcommand, from the help text.
install -d "$root/usr/share/man/man1" "$work/man"
date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)
for product in filmcache omdb-standin; do
  "$manual_tool" "$root/usr/bin/$product" --multi-page --date "$date" --section 1 \
    --authors "the filmcache authors" --output-directory "$work/man"
done
# A subcommand's page is named as man looks it up (filmcache-db-copy), its NAME line too (whatis),
# while its SYNOPSIS shows the command as typed; mdoc wants .Pp, not empty lines, between paragraphs.
for page in "$work"/man/*.1; do
  name=$(basename "$page" .1 | tr '.' '-')
  words=$(basename "$page" .1 | tr '.' ' ')
  upper=$(echo "$name" | tr '[:lower:]' '[:upper:]')
  sed -e "s/^\.Dt .* 1\$/.Dt $upper 1/" \
    -e "0,/^\.Nm .*/s//.Nm $name/" \
    -e "/^\.Sh SYNOPSIS/{n;s/^\.Nm\$/.Nm \"$words\"/}" \
    -e 's/^$/.Pp/' "$page" | gzip -9n >"$root/usr/share/man/man1/$name.1.gz"
done

# Shell completions, where each shell looks.
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
  "$root/usr/share/fish/vendor_completions.d"
for product in filmcache omdb-standin; do
  # bash-completion sources the file: no #! line.
  "$root/usr/bin/$product" --generate-completion-script bash | sed '1{/^#!/d}' \
    >"$root/usr/share/bash-completion/completions/$product"
  "$root/usr/bin/$product" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$product"
  "$root/usr/bin/$product" --generate-completion-script fish \
    >"$root/usr/share/fish/vendor_completions.d/$product.fish"
done

# systemd units (installed, not enabled), the user and its directories, logrotate.
install -d "$root/lib/systemd/system" "$root/usr/lib/sysusers.d" "$root/usr/lib/tmpfiles.d" "$root/etc/logrotate.d"
install -m 0644 Jobs/filmcache-warm.service Jobs/filmcache-warm.timer Jobs/filmcache-serve.service \
  "$root/lib/systemd/system/"
install -m 0644 Packaging/filmcache.sysusers "$root/usr/lib/sysusers.d/filmcache.conf"
install -m 0644 Packaging/filmcache.tmpfiles "$root/usr/lib/tmpfiles.d/filmcache.conf"
install -m 0644 Packaging/logrotate "$root/etc/logrotate.d/filmcache"

# Configuration: conffiles, never the key or the tokens (the docs say how to make them).
install -d "$root/etc/filmcache"
install -m 0644 Jobs/nightly.toml Jobs/serve.toml Jobs/watchlist.txt "$root/etc/filmcache/"

# Monitoring: alert rules and a dashboard.
install -d "$root/usr/share/filmcache/prometheus" "$root/usr/share/filmcache/grafana"
install -m 0644 Packaging/monitoring/filmcache.rules.yml "$root/usr/share/filmcache/prometheus/"
install -m 0644 Packaging/monitoring/filmcache-grafana.json "$root/usr/share/filmcache/grafana/filmcache.json"

# Documentation.
doc="$root/usr/share/doc/filmcache"
install -d "$doc/examples"
install -m 0644 README.md docs/OPERATING.md docs/JOBS.md docs/METRICS.md docs/SCHEMA.md docs/IMDBFILM.md "$doc/"
install -m 0644 Jobs/crontab Jobs/prewarm.toml Jobs/shared.toml "$doc/examples/"
install -m 0644 Packaging/copyright "$doc/copyright"
changelog_date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
maintainer=${DEB_MAINTAINER:-$(sed -n 's/^Maintainer: //p' Packaging/control)}
cat >"$work/changelog" <<EOF
filmcache ($debversion) bookworm; urgency=medium

  * filmcache $version, packaged with the Swift runtime linked statically.

 -- $maintainer  $changelog_date
EOF

if [ "$mode" = dist ]; then
  mkdir -p dist
  out="dist/filmcache-$version-linux-amd64.tar.gz"
  tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    -C "$root" -czf "$out" .
  echo "$out"
  exit 0
fi

gzip -9n <"$work/changelog" >"$doc/changelog.Debian.gz"

# Control data: Depends from dpkg-shlibdeps, the rest from Packaging/control, by dpkg-gencontrol.
install -d "$work/src/debian" "$root/DEBIAN"
sed "s/^Maintainer: .*/Maintainer: $maintainer/" Packaging/control >"$work/src/debian/control"
cp "$work/changelog" "$work/src/debian/changelog"
(
  cd "$work/src"
  dpkg-shlibdeps -Tdebian/substvars "$root/usr/bin/filmcache" "$root/usr/bin/omdb-standin"
  dpkg-gencontrol -pfilmcache -P"$root" -Tdebian/substvars -v"$debversion"
)
install -m 0755 Packaging/postinst Packaging/prerm Packaging/postrm "$root/DEBIAN/"
find "$root/etc" -type f -printf '/etc/%P\n' | sort >"$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
  >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

# The symbols package, as debhelper names and describes one.
install -d "$dbg/DEBIAN" "$dbg/usr/share/doc"
ln -s filmcache "$dbg/usr/share/doc/filmcache-dbgsym"
cat >"$dbg/DEBIAN/control" <<EOF
Package: filmcache-dbgsym
Source: filmcache
Version: $debversion
Auto-Built-Package: debug-symbols
Architecture: amd64
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$dbg" | cut -f1)
Depends: filmcache (= $debversion)
Section: debug
Priority: optional
Description: debug symbols for filmcache
Build-Ids: $(tr '\n' ' ' <"$work/build-ids" | sed 's/ $//')
EOF
(cd "$dbg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
  >"$dbg/DEBIAN/md5sums"

mkdir -p dist
# DEB_COMPRESSION: xz (the default, smallest) or gzip (quicker, for a test's throwaway builds).
compression=${DEB_COMPRESSION:-xz}
dpkg-deb --root-owner-group -Z"$compression" --build "$root" "dist/filmcache_${debversion}_amd64.deb"
dpkg-deb --root-owner-group -Z"$compression" --build "$dbg" "dist/filmcache-dbgsym_${debversion}_amd64.deb"
