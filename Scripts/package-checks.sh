#!/usr/bin/env bash
# The checks `make test-package` runs inside the bare Debian 12 root, as root, by phase:
#   install VERSION        the installed package: commands, man pages, completions, ldd, a warm, readers
#   before-upgrade VERSION an operator's edit to a conffile, and what the cache and ledger hold
#   after-upgrade VERSION  the edit, the cache and the ledger are kept; a warm runs on
#   remove-purge VERSION   apt remove keeps /etc/filmcache and the cache; apt purge deletes them
set -euo pipefail
phase=$1
version=$2
state=/root/package-checks.state
db=/var/lib/filmcache/films.sqlite
fail() { echo "package check failed: $*" >&2; exit 1; }

# Starts the stand-in on a free loopback port with a corpus of 50 generated films; sets $port.
start_standin() {
  rm -rf /tmp/corpus && omdb-standin generate --count 50 --out /tmp/corpus >/dev/null
  omdb-standin serve --port 0 --corpus /tmp/corpus >/tmp/standin.out 2>/tmp/standin.err &
  standin=$!
  trap 'kill $standin 2>/dev/null || true' EXIT
  local deadline=$((SECONDS + 20))
  until port=$(sed -n 's/^omdb-standin listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' /tmp/standin.out) && [ -n "$port" ]; do
    [ $SECONDS -lt $deadline ] || { cat /tmp/standin.err >&2; fail "the stand-in did not start"; }
    sleep 0.1
  done
}

# Top-level numbers of the pretty-printed JSON reports (two spaces in).
films() { runuser -u filmcache -- filmcache stats --db "$db" --json | sed -n 's/^  "films" : \([0-9]*\).*/\1/p'; }
used() { runuser -u filmcache -- filmcache quota --db "$db" --json | sed -n 's/^  "used" : \([0-9]*\).*/\1/p'; }

case $phase in
install)
  # systemd after the package: its postinst made the user with useradd (no systemd-sysusers yet), the
  # upgrade's runs systemd-sysusers and systemd-tmpfiles; systemd-analyze verify finds its targets here.
  apt-get install -y -qq --no-install-recommends man-db bash-completion sqlite3 systemd >/dev/null
  [ "$(dpkg-query -W -f='${Version}' filmcache)" = "$version" ] || fail "filmcache $version is not installed"

  echo "-- --version"
  filmcache --version
  [ "$(filmcache --version)" = "${version%-*}" ] || fail "filmcache --version does not print ${version%-*}"
  omdb-standin --help >/dev/null

  echo "-- man pages"
  for page in filmcache filmcache-warm filmcache-serve filmcache-show filmcache-db-copy omdb-standin; do
    man -P cat "$page" 2>/tmp/man.err | grep -q . || { cat /tmp/man.err >&2; fail "man $page renders nothing"; }
  done
  man -P cat filmcache-warm 2>/dev/null | grep -q -- '--job' || fail "man filmcache-warm does not describe --job"
  ! man -P cat filmcache-warm 2>&1 >/dev/null | grep -q . || fail "man filmcache-warm warns"

  echo "-- bash completion"
  # shellcheck disable=SC1091
  words=$(bash -c 'source /usr/share/bash-completion/bash_completion
    source /usr/share/bash-completion/completions/filmcache
    COMP_WORDS=(filmcache wa); COMP_CWORD=1; COMP_LINE="filmcache wa"; COMP_POINT=${#COMP_LINE}
    $(complete -p filmcache | sed "s/.*-F \([^ ]*\) .*/\1/") filmcache wa filmcache
    printf "%s\n" "${COMPREPLY[@]}"')
  echo "$words" | grep -qx warm || fail "bash completion of 'filmcache wa' does not offer warm (got: $words)"
  [ -s /usr/share/zsh/vendor-completions/_filmcache ] && [ -s /usr/share/fish/vendor_completions.d/filmcache.fish ] ||
    fail "zsh or fish completion missing"

  echo "-- ldd"
  for binary in /usr/bin/filmcache /usr/bin/omdb-standin; do
    ldd "$binary"
    [[ $(ldd "$binary") != *'not found'* ]] || fail "$binary: a library is not found"
    ldd "$binary" | awk '/=>/ { print $3 } !/=>/ { print $1 }' | grep -v '^linux-vdso' |
      grep -Ev '^/(usr/)?lib(64|32|x32)?/' && fail "$binary loads a library outside /lib and /usr/lib"
  done
  # libcurl is loaded by the commands that fetch (the package Depends on libcurl4 for it), not at start-up;
  [[ $(ldd /usr/bin/filmcache) != *libcurl* ]] || fail "/usr/bin/filmcache links libcurl at start-up"
  # libcrypto too, by the commands that name a key or a poster (the package Depends on libssl3 for it).
  [[ $(ldd /usr/bin/filmcache) != *libcrypto* ]] || fail "/usr/bin/filmcache links libcrypto at start-up"
  # libstdc++ is linked in (Scripts/build-deb.sh): loaded, it had thousands of symbols bound at every start.
  for binary in /usr/bin/filmcache /usr/bin/omdb-standin; do
    [[ $(ldd "$binary") != *libstdc++* ]] || fail "$binary loads libstdc++ (it is linked in)"
  done

  echo "-- the user, the directories, the conffiles"
  [ "$(stat -c '%a %U %G' /var/lib/filmcache)" = "2750 filmcache filmcache" ] || fail "/var/lib/filmcache: $(stat -c '%a %U %G' /var/lib/filmcache)"
  for conffile in /etc/filmcache/nightly.toml /etc/filmcache/serve.toml /etc/filmcache/watchlist.txt; do
    grep -qx "$conffile" /var/lib/dpkg/info/filmcache.conffiles || fail "$conffile is not a conffile"
  done
  [ ! -e /etc/filmcache/omdb.key ] && [ ! -e /etc/filmcache/tokens ] || fail "the package ships a key or tokens file"

  echo "-- a warm of 50 IDs against the stand-in, as the installed job runs it"
  start_standin
  ls /tmp/corpus | sed -n 's/\.json$//p' >>/etc/filmcache/watchlist.txt
  [ "$(grep -c '^tt' /etc/filmcache/watchlist.txt)" = 50 ] || fail "the worklist does not hold 50 IDs"
  # The key as the cron route keeps it: read by the filmcache user, not by its group.
  install -m 0400 -o filmcache -g root /dev/null /etc/filmcache/omdb.key
  printf 'demo\n' >/etc/filmcache/omdb.key
  runuser -u filmcache -- filmcache warm --job /etc/filmcache/nightly.toml --base-url "http://127.0.0.1:$port/" \
    --rate 0 --log-format logfmt
  id=$(head -1 <(grep '^tt' /etc/filmcache/watchlist.txt))
  runuser -u filmcache -- filmcache show --db "$db" --json "$id" | tee /tmp/show.json | head -c 300
  echo
  grep -q "\"imdbID\" *: *\"$id\"" /tmp/show.json || fail "show --json $id does not print the film"
  [ "$(films)" = 50 ] || fail "the cache holds $(films) films, not 50"
  [ "$(stat -c '%G' $db)" = filmcache ] || fail "$db is not in the filmcache group"

  echo "-- a reader in the filmcache group: reads the cache, not the key"
  useradd --create-home --groups filmcache app
  ! runuser -u app -- cat /etc/filmcache/omdb.key 2>/dev/null || fail "a reader can read the key"
  runuser -u app -- filmcache show --db "$db" "$id" >/dev/null
  runuser -u app -- filmcache plan --job /etc/filmcache/nightly.toml >/dev/null || fail "plan needs the key"
  runuser -u app -- filmcache quota --job /etc/filmcache/nightly.toml >/dev/null || fail "quota needs the key"
  runuser -u app -- filmcache stats --job /etc/filmcache/nightly.toml >/dev/null || fail "stats needs the key"
  # An administrator's sqlite3 session, the last connection to close, deletes -wal and -shm.
  sqlite3 "$db" 'SELECT count(*) FROM films' >/dev/null
  [ ! -e "$db-shm" ] || fail "sqlite3 left -shm in place; the next check tests nothing"
  runuser -u app -- filmcache show --db "$db" "$id" >/dev/null || fail "a reader fails once -wal and -shm are gone"
  runuser -u app -- filmcache stats --db "$db" >/dev/null || fail "stats fails once -wal and -shm are gone"
  ;;

before-upgrade)
  printf '# an edit an upgrade keeps\n' >>/etc/filmcache/nightly.toml
  films >/root/films.before
  used >/root/used.before
  [ "$(cat /root/films.before)" = 50 ] || fail "before the upgrade the cache holds $(cat /root/films.before) films"
  ;;

after-upgrade)
  [ "$(dpkg-query -W -f='${Version}' filmcache)" = "$version" ] || fail "filmcache $version is not installed"
  grep -qx '# an edit an upgrade keeps' /etc/filmcache/nightly.toml || fail "the upgrade lost the edited conffile"
  [ -e /etc/filmcache/omdb.key ] || fail "the upgrade removed the key"
  [ "$(films)" = "$(cat /root/films.before)" ] || fail "the upgrade changed the cache: $(films) films"
  [ "$(used)" = "$(cat /root/used.before)" ] || fail "the upgrade changed the ledger: $(used) calls"
  start_standin
  runuser -u filmcache -- filmcache warm --job /etc/filmcache/nightly.toml --base-url "http://127.0.0.1:$port/" \
    --rate 0 --log-format logfmt | tee /tmp/warm2.out
  grep -Eq 'fresh, skipped +50' /tmp/warm2.out || fail "the warm after the upgrade did not find the 50 films fresh"
  ;;

remove-purge)
  apt-get remove -y -qq filmcache >/dev/null
  [ ! -e /usr/bin/filmcache ] || fail "remove left /usr/bin/filmcache"
  [ -f /etc/filmcache/nightly.toml ] && [ -f "$db" ] && [ -f /etc/filmcache/omdb.key ] ||
    fail "remove deleted configuration or the cache"
  apt-get purge -y -qq filmcache >/dev/null
  [ ! -e /etc/filmcache ] && [ ! -e /var/lib/filmcache ] || fail "purge left /etc/filmcache or /var/lib/filmcache"
  getent passwd filmcache >/dev/null || fail "purge removed the filmcache user (Debian leaves system users)"
  ;;
*)
  fail "unknown phase $phase"
  ;;
esac
echo "-- $phase: ok"
