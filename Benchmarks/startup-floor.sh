#!/usr/bin/env bash
# What a `resv --version` could cost at best: the same one-line program built the ways a
# Swift command-line tool can be linked on Linux, beside C, timed by hyperfine (medians of
# wall time, means of CPU), with each binary's size stripped. It answers "what would it take" for
# the start-up and size goals of the shipped binaries (Benchmarks/shipped.sh measures
# those): the dynamic Swift runtime, the static one (`make dist`'s), a fully static
# executable, and Foundation against FoundationEssentials alone (no ICU).
#   Benchmarks/startup-floor.sh          (RUNS=N hyperfine runs, default 300)
# Needs swiftc, cc, hyperfine and python3.
set -euo pipefail
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# Each program prints the version line; given "x" it also uses what resv uses at start
# (dates, JSON, the environment), so the linker keeps those parts.
cat > foundation.swift <<'SWIFT'
import Foundation
if CommandLine.arguments.dropFirst().first == "x" {
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy"
    print(formatter.string(from: Date()))
    print(String(decoding: try! JSONEncoder().encode(["a": 1]), as: UTF8.self))
    print(ProcessInfo.processInfo.environment["HOME"] ?? "")
}
print("resv 0.1.0")
SWIFT
cat > essentials.swift <<'SWIFT'
import FoundationEssentials
if CommandLine.arguments.dropFirst().first == "x" {
    print(Date.now.formatted(.iso8601))
    print(String(decoding: try! JSONEncoder().encode(["a": 1]), as: UTF8.self))
    print(ProcessInfo.processInfo.environment["HOME"] ?? "")
}
print("resv 0.1.0")
SWIFT
echo 'print("resv 0.1.0")' > bare.swift
printf '#include <stdio.h>\nint main(void) { puts("resv 0.1.0"); return 0; }\n' > c.c
build() { swiftc -O "$@" 2>&1 | grep -v "statically linked applications\|is dangerous" || true; }
cc -O2 c.c -o c
build bare.swift -o swift-dynamic
build -static-stdlib bare.swift -o swift-static-stdlib
build -static-executable bare.swift -o swift-static-executable
build foundation.swift -o foundation-dynamic
build -static-stdlib foundation.swift -o foundation-static-stdlib
build -static-executable foundation.swift -o foundation-static-executable
build -static-stdlib essentials.swift -o essentials-static-stdlib
build -static-executable essentials.swift -o essentials-static-executable
programs=(c swift-dynamic swift-static-stdlib swift-static-executable foundation-dynamic
    foundation-static-stdlib foundation-static-executable essentials-static-stdlib essentials-static-executable)
for program in "${programs[@]}"; do ./"$program" x >/dev/null; strip -o "$program.stripped" "$program"; done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine -N --warmup 10 --runs "${RUNS:-300}" --style none --export-json results.json \
    $(for program in "${programs[@]}"; do echo "./$program"; done) >/dev/null 2>hyperfine.log \
    || { cat hyperfine.log >&2; exit 1; }
python3 - results.json <<'PY'
import json, os, statistics, sys
print(f"{'program':32s} {'stripped':>9s} {'median':>9s} {'CPU mean':>9s}")
for result in json.load(open(sys.argv[1]))["results"]:
    name = result["command"][2:]
    cpu = (result["user"] + result["system"]) * 1000
    print(f"{name:32s} {os.path.getsize(name + '.stripped') / 1048576:7.1f} M {statistics.median(result['times']) * 1000:6.2f} ms {cpu:6.2f} ms")
PY
