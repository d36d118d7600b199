# Two entry points for a fresh Debian machine with Swift installed:
#   make run    install system packages, build resv, run it on its default store
#   make test   install system packages, run every test (route and end-to-end tests on SQLite
#               and on a throwaway PostgreSQL, schemathesis against the OpenAPI document, a failover
#               of a Patroni cluster) and the docs check
#   make install  release build of resv, its man page and completions under PREFIX (~/.local)
#   make install-server  the same for resv-server
#   make dist     release binaries (static Swift runtime, stripped, symbols in dist/*.debug)
#                 and dist/resv_VERSION_amd64.deb, dist/resv-server_VERSION_amd64.deb (scripts/dist)
#   make bench    whole-command timings against jq (Benchmarks/commands.sh), then the
#                 in-process benchmarks (Benchmarks/Package.swift, ordo-one/benchmark)
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# What resv needs: libreadline-dev for `resv repl`; libcurl4, which its HTTP backend loads
# on the first request (no libcurl-dev: Sources/CCurl declares what it uses); libjq1, which
# --jq loads on first use (no libjq-dev: Sources/CJQ declares what it uses).
PACKAGES := libreadline-dev libcurl4 libjq1
# What the tests need besides: jq (the end-to-end tests pipe `resv list --json` through it),
# groff-base (the man pages read without warnings), postgresql (resv-server's tests run on
# PostgreSQL too: scripts/with-postgres starts one), python3-venv (schemathesis), sqlite3
# (the capacity tests count the rows a server stored), zsh and fish (completion is tried in each), less (the pager),
# patroni, etcd-server and etcd-client (the failover check: a three-node cluster on loopback),
# vdirsyncer and khal (a calendar subscription read by the clients people use).
TEST_PACKAGES := $(PACKAGES) jq groff-base postgresql python3-venv sqlite3 curl zsh fish less patroni etcd-server etcd-client vdirsyncer khal
ARGS ?= list
# The shipped binary: the Swift runtime and Foundation linked in, which halves
# start-up (BENCHMARKS.md). Its own build folder, so debug builds are not redone.
RELEASE := swift build -c release --product resv --static-swift-stdlib --scratch-path .build-static
PREFIX ?= $(HOME)/.local

BENCH_PACKAGES := hyperfine jq time

SERVER_RELEASE := swift build -c release --product resv-server --static-swift-stdlib --scratch-path .build-release

.PHONY: deps test-deps build run test docs check-docs install install-server dist bench

deps:
	@if ! dpkg -s $(PACKAGES) >/dev/null 2>&1; then \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(PACKAGES); \
	fi

test-deps:
	@if ! dpkg -s $(TEST_PACKAGES) >/dev/null 2>&1; then \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(TEST_PACKAGES); \
	fi

build: deps
	swift build --product resv

run: build
	"$$(swift build --product resv --show-bin-path)/resv" $(ARGS)

test: test-deps
	# The house style (.swift-format), strictly: a warning fails the build.
	swift format lint --strict --recursive Sources Tests Package.swift
	# No function over 80 lines in Sources (STYLE: named steps that read top-down): the check's
	# cases first, then the check, with the bodies it lets through, and why, in
	# scripts/function-lengths.allowed.
	python3 scripts/function_lengths_test.py
	scripts/function-lengths --allowed scripts/function-lengths.allowed
	# scripts/check-resolved's own cases (a pin outside Package.swift's range, one the sources
	# have no tag of, …); .ci/run runs the check itself before anything is built.
	scripts/check-resolved-test
	# Every module a target imports is declared in Package.swift, no underscored module: the
	# strict check (its cases first), then SwiftPM's own, which refuses an import of a target
	# outside a target's dependencies and theirs.
	python3 scripts/check_imports_test.py
	scripts/check_imports.py
	swift build --explicit-target-dependency-import-check error
	# icalendar, which the tests read `--format ics` with, pinned in .build-venv/.
	scripts/test-python -c ''
	RESV_REQUIRE_POSTGRES=1 scripts/with-postgres swift test
	scripts/schemathesis-check "$$(swift build --show-bin-path)/resv-server"
	# Patroni 4.1.5 from PyPI, pinned, in .build-patroni/ (once): the clusters below run it, as
	# Debian's 3.0.2 gives the lock back to a paused former leader (BENCHMARKS.md, "The long run").
	scripts/install-patroni >/dev/null
	# A Patroni cluster's leader killed, a switchover, an instance killed, under load: nothing
	# lost, no 5xx, every request answered (one run; `scripts/failover --runs 3` by hand).
	# Its checks first, each shown red on a crafted log; the run at info, which logs the request
	# lines the "never answered" check reads.
	python3 scripts/failover_checks_test.py
	FAILOVER_LOG_LEVEL=info scripts/failover
	# Faults beyond kill -9 (scripts/faults; each fault 600 s by hand, see docs/testing.md): the
	# checker's invariants each shown red on a hand-made history; then one cluster (Patroni 4.1.5,
	# its lease 20 s, the shortest it takes) for every fault but kill once under one load, checked
	# once, and on the same cluster the lost-ack negative control, which must fail its invariant
	# for the run to pass. kill is the failover's above (and in `--fault all`): each fault on the
	# leader lasts a lease, so the step keeps to three of them.
	python3 scripts/fault_checks_test.py
	scripts/faults --fault pause,partition-leader,partition-instance,one-way,slow,drop-answers --seconds 3 --check-once --control lost-ack
	# libFuzzer over the parsers, every target 30 s at once (scripts/fuzz TARGET 600 by hand);
	# first its own check: the seeded trap must be found, or the fuzzer is not looking.
	rm -rf .build-fuzz/findings/seeded-trap
	scripts/fuzz seeded-trap 60 2>&1 | grep '^seeded-trap: FOUND .build-fuzz/findings/seeded-trap/crash-'
	scripts/fuzz --all 30
	scripts/generate-docs --check

docs:
	scripts/generate-docs

check-docs:
	scripts/generate-docs --check

install: deps
	$(RELEASE)
	install -Dm755 "$$($(RELEASE) --show-bin-path)/resv" "$(DESTDIR)$(PREFIX)/bin/resv"
	install -Dm644 man/resv.1 "$(DESTDIR)$(PREFIX)/share/man/man1/resv.1"
	install -Dm644 completions/resv.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/resv"
	install -Dm644 completions/resv.zsh "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_resv"
	install -Dm644 completions/resv.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/resv.fish"

install-server: deps
	$(SERVER_RELEASE)
	install -Dm755 "$$($(SERVER_RELEASE) --show-bin-path)/resv-server" "$(DESTDIR)$(PREFIX)/bin/resv-server"
	install -Dm644 man/resv-server.1 "$(DESTDIR)$(PREFIX)/share/man/man1/resv-server.1"
	install -Dm644 completions/resv-server.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/resv-server"
	install -Dm644 completions/resv-server.zsh "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_resv-server"
	install -Dm644 completions/resv-server.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/resv-server.fish"

# The packages: scripts/dist (dpkg-deb, objcopy and strip: Debian's dpkg and binutils).
dist: deps
	scripts/dist

bench: deps
	@if ! dpkg -s $(BENCH_PACKAGES) >/dev/null 2>&1; then \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(BENCH_PACKAGES); \
	fi
	Benchmarks/commands.sh
	swift package --package-path Benchmarks benchmark --grouping metric --no-progress
