#!/usr/bin/env bash
# BENCHMARKS.md's "The file store's journal": what 100,000 changes of history cost a store
# of 20,000 reservations.
# Three layouts of the same reservations (generated, seeded):
#   long    the journal reservations.json.history holds all 100,000 changes (what resv writes now)
#   short   the journal holds only the last change (the same store "without history")
#   array   the 100,000 changes in the store's "history" array (what an older resv wrote; the
#           first write moves them into the journal, so each run starts from a fresh copy)
# Times `reserve`, `undo` (of the last change, a modify) and `log --limit 5` on each, with
# hyperfine (medians), and their peak memory (GNU time, median of 5).
#   Benchmarks/history.sh
# Release build (as `make install` builds it). Needs hyperfine, python3 and GNU time.
source "$(dirname "$0")/common.sh"
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install -y time" >&2; exit 1; }
python3 - "$work" <<'PY'
import json, os, random, sys, uuid
work = sys.argv[1]
random.seed(30)
# Landmarks without a capacity, so no undo is ever refused for room.
landmarks = ["7c6984ff-188e-417e-b476-ec5f30b8d745", "938e63b1-f467-476b-b442-edcb1b3bc450"]
def at(i):
    return "2026-%02d-%02dT%02d:%02d:%02dZ" % (1 + i // 900000 % 12, 1 + i // 36000 % 28, i // 1500 % 24, i // 25 % 60, i % 60)
records, history = [], []
def entry(i, change, before, after, command):
    e = {"at": at(i), "change": change, "command": command, "reservationId": after["id"], "after": dict(after)}
    if before is not None: e["before"] = dict(before)
    return e
for i in range(20000):
    r = {"id": str(uuid.UUID(int=random.getrandbits(128), version=4)), "landmarkId": random.choice(landmarks),
         "date": "2030-%02d-%02dT%02d:00:00Z" % (random.randint(1, 12), random.randint(1, 28), random.randint(0, 23)),
         "partySize": random.randint(1, 8), "status": "confirmed", "createdAt": at(i), "updatedAt": at(i), "version": 1}
    records.append(r)
    history.append(entry(i, "created", None, r, str(uuid.UUID(int=random.getrandbits(128), version=4))))
for i in range(20000, 100000):
    r = random.choice(records)
    before = dict(r)
    r["partySize"] = 1 + r["partySize"] % 8
    r["version"] += 1
    r["updatedAt"] = at(i)
    history.append(entry(i, "modified", before, r, str(uuid.UUID(int=random.getrandbits(128), version=4))))
def store(path, **extra):
    with open(path, "w") as f: json.dump(dict({"version": 1, "reservations": records}, **extra), f, indent=2, sort_keys=True)
def journal(path, entries, first):
    with open(path, "w") as f:
        for n, e in enumerate(entries, first): f.write(json.dumps(dict(e, seq=n), separators=(",", ":"), sort_keys=True) + "\n")
for name in ["long", "short", "array"]: os.makedirs(f"{work}/{name}-pristine")
store(f"{work}/long-pristine/reservations.json", lastChange=100000)
journal(f"{work}/long-pristine/reservations.json.history", history, 1)
store(f"{work}/short-pristine/reservations.json", lastChange=100000)
journal(f"{work}/short-pristine/reservations.json.history", history[-1:], 100000)
store(f"{work}/array-pristine/reservations.json", history=history)
PY
for name in long short array; do
  echo "$name: $(du -h "$work/$name-pristine"/* | awk '{print $2 " " $1}' | sed "s|$work/$name-pristine/||" | xargs)"
done
commands=()
for name in long short array; do
  # sync: no run pays for writing back the copy it starts from (an fsync would).
  reset="rm -rf $work/$name && cp -r $work/$name-pristine $work/$name && sync"
  s="RESV_STORE=$work/$name/reservations.json"
  commands+=(
    --prepare "$reset" "$s $bin reserve -l 'Lake Tahoe' -d 2031-01-01T10:00:00Z -n 2 # reserve, $name"
    --prepare "$reset" "$s $bin undo # undo, $name"
    --prepare "$reset" "$s $bin log --limit 5 # log --limit 5, $name"
    --prepare "$reset" "$s $bin log --json >/dev/null # log --json (all), $name")
done
hyperfine --warmup 1 --runs "${RUNS:-10}" --style none --export-json "$work/results.json" "${commands[@]}" >/dev/null
report "$work/results.json"
echo "peak memory, median of 5 runs:"
for name in long short array; do
  for label in reserve undo log log-all; do
    case $label in
      reserve) args=(reserve -l "Lake Tahoe" -d 2031-01-01T10:00:00Z -n 2) ;;
      undo) args=(undo) ;;
      log) args=(log --limit 5) ;;
      log-all) args=(log --json) ;;
    esac
    kbs=()
    for _ in 1 2 3 4 5; do
      rm -rf "$work/$name" && cp -r "$work/$name-pristine" "$work/$name" && sync
      RESV_STORE=$work/$name/reservations.json /usr/bin/time -o "$work/time.txt" -f %M "$bin" "${args[@]}" >/dev/null 2>&1 || true
      kbs+=("$(tail -1 "$work/time.txt")")
    done
    kb=$(printf '%s\n' "${kbs[@]}" | sort -n | sed -n 3p)
    printf '%-18s %7.1f MiB\n' "$label, $name" "$(echo "$kb" | awk '{print $1 / 1024}')"
  done
done
