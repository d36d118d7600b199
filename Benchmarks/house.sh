#!/usr/bin/env bash
# BENCHMARKS.md's "Before and after the house's second pass": what a change of the code's
# shape (files split, repeated runs taken out) must not make slower: start-up (`resv --version`,
# `resv list` on an empty store) and `resv list --json` on a store of 10,000 reservations.
# Hyperfine medians, one line a command and binary.
#   Benchmarks/house.sh [BINARY...]     (default: the release build, `swift build -c release --product resv`)
# Given two binaries (say one built before a change, copied aside, and one after), it times them
# side by side in one session, so the VM's minute-to-minute drift falls on both alike.
# RUNS=N sets hyperfine's runs (default 30; start-up 5 times as many). Needs hyperfine and python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -eq 0 ]; then
  swift build -c release --product resv >/dev/null
  set -- "$(swift build -c release --product resv --show-bin-path)/resv"
fi
# common.sh builds the static binary only when RESV_BIN does not name one.
export RESV_BIN=$1
source Benchmarks/common.sh
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
make_store 10000 "$work/store.json"
empty="$work/empty/store.json"
mkdir -p "$(dirname "$empty")"
runs=${RUNS:-30}
for what in version empty list-json; do
  commands=()
  for binary in "$@"; do
    case $what in
      version) commands+=(-n "resv --version: $binary" "$binary --version") ;;
      empty) commands+=(-n "resv list, empty store: $binary" "env RESV_STORE=$empty $binary list") ;;
      list-json) commands+=(-n "resv list --json, 10k: $binary" "env RESV_STORE=$work/store.json $binary list --json") ;;
    esac
  done
  count=$runs
  [ "$what" = list-json ] || count=$((runs * 5))
  hyperfine -N --warmup 3 --runs "$count" --style none --export-json "$work/$what.json" "${commands[@]}" >/dev/null
  report "$work/$what.json"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
