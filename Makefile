# Two entry points for a fresh Debian machine with Swift installed:
#   make run    install system packages, build resv, run it on its default store
#   make test   install system packages, run every test and the docs check
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# libreadline-dev: `resv repl`. jq: the end-to-end tests pipe `resv list --json` through it.
PACKAGES := libreadline-dev jq
ARGS ?= list

.PHONY: deps build run test docs check-docs

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
