#!/usr/bin/env bash
# Times what one Tab costs: the `resv ---completion …` call the generated
# completion scripts make for reservation ids (`resv cancel <Tab>`) and landmark
# names (`resv reserve -l <Tab>`), on stores of 100, 1,000 and 10,000 reservations.
#   Benchmarks/completion.sh [SIZES...]
source "$(dirname "$0")/common.sh"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000 10000)
commands=()
for n in "${sizes[@]}"; do
  make_store "$n" "$work/store-$n.json"
  commands+=("RESV_STORE=$work/store-$n.json $bin ---completion cancel -- positional@0 2 0 resv cancel '' # Tab for ids on a store of $n"
    "RESV_STORE=$work/store-$n.json $bin ---completion reserve -- --landmark 3 0 resv reserve -l '' # Tab for names on a store of $n")
done
hyperfine --warmup 3 --runs 30 --style none --export-json "$work/results.json" "${commands[@]}" >/dev/null
report "$work/results.json"
