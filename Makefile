# filmcache — make rules:
#   make             build (debug)
#   make run         install what is missing, build release, warm Data/watchlist.txt into out/filmcache.sqlite
#                    (with no OMDB_API_KEY: against the bundled OMDb stand-in on a free loopback port)
#   make test        install what is missing, check that time is only handed down (Scripts/check-time.sh),
#                    build, run the whole suite
#   make test-reliability  build, run only the reliability suites (fault storm, kill -9 loop, concurrency,
#                    bad input, key hygiene, normalizer fuzz; see Tests/EndToEndTests/Reliability*.swift)
#   make bench       benchmarks side by side with their reference runs (prints ratios)
#   make format      rewrite sources with swift format; make lint checks them
#   make deb         dist/filmcache_VERSION-REVISION_amd64.deb (+ -dbgsym): static Swift runtime, man pages,
#                    completions, systemd units, sysusers/tmpfiles, conffiles, alert rules, dashboard
#   make dist        the same tree as dist/filmcache-VERSION-linux-amd64.tar.gz, for other distributions
#   make test-package  build the package, install it with apt into a bare Debian 12 root (debootstrap) and
#                    check it there: commands, man pages, completions, ldd, a warm, an upgrade, the docs' blocks
#   make symbol-order  build the package's binary, then remake Packaging/filmcache.order, the layout of its
#                    functions, from the commands traced by valgrind (Scripts/symbol-order.sh)
#   make deps        install the Debian packages the build needs (apt-get, when missing)
#   make clean       remove build output and out/

SWIFT ?= swift
DB ?= out/filmcache.sqlite
WORKLIST ?= Data/watchlist.txt

.PHONY: all build release run test test-reliability bench format lint deps clean deb dist test-package package-deps \
	symbol-order

all: build

deps:
	@Scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	@Scripts/run-warm.sh "$(DB)" "$(WORKLIST)"

# The suites that start a PostgreSQL server (the contract suite over every backend, and the
# PostgreSQL-only tests) run in a pass of their own: beside the whole suite on two cores
# their tests have stalled (an open problem); alone they take seconds.
SERVER_SUITES = FilmCachePostgresTests|FilmCacheContractTests
# serve's in-process suites too: their server's handlers run on Swift's shared thread pool, which the
# end-to-end tests that wait on a process block for a minute at a time on a slow machine.
SERVE_SUITES = FilmCacheServeTests
test: deps
	@Scripts/check-time.sh
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(SERVER_SUITES)|$(SERVE_SUITES)'
	$(SWIFT) test --skip-build --filter '$(SERVE_SUITES)'
	$(SWIFT) test --skip-build --filter '$(SERVER_SUITES)'

test-reliability: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'Reliability|NormalizerFuzz'

bench: deps
	@Scripts/bench.sh

format:
	$(SWIFT) format -i -r Package.swift Sources Tests

lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests

package-deps: deps
	@Scripts/install-deps.sh --package

deb: package-deps
	@Scripts/build-deb.sh

dist: package-deps
	@Scripts/build-deb.sh --dist

test-package: package-deps
	@Scripts/test-package.sh

symbol-order: deb
	@Scripts/symbol-order.sh "$${STATIC_SCRATCH:-.build-static}/release/filmcache"

clean:
	rm -rf .build .build-static .build-manual out dist
