# Two entry points for a fresh Debian machine with Swift installed:
#   make run    install system packages, build resv, run it on its default store
#   make test   install system packages, run every test and the docs check
#   make install  release build of resv, its man page and completions under PREFIX (~/.local)
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# libreadline-dev: `resv repl`. jq: the end-to-end tests pipe `resv list --json` through it.
# groff-base: the test that the man page reads without warnings.
PACKAGES := libreadline-dev jq groff-base
ARGS ?= list
PREFIX ?= $(HOME)/.local

.PHONY: deps build run test docs check-docs install

deps:
	@if ! dpkg -s $(PACKAGES) >/dev/null 2>&1; then \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(PACKAGES); \
	fi

build: deps
	swift build --product resv

run: build
	"$$(swift build --product resv --show-bin-path)/resv" $(ARGS)

test: deps
	swift build
	swift test
	scripts/generate-docs --check

docs:
	scripts/generate-docs

check-docs:
	scripts/generate-docs --check

install: deps
	swift build -c release --product resv
	install -Dm755 "$$(swift build -c release --product resv --show-bin-path)/resv" "$(DESTDIR)$(PREFIX)/bin/resv"
	install -Dm644 man/resv.1 "$(DESTDIR)$(PREFIX)/share/man/man1/resv.1"
	install -Dm644 completions/resv.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/resv"
	install -Dm644 completions/resv.zsh "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_resv"
	install -Dm644 completions/resv.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/resv.fish"
