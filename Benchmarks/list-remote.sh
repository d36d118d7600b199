#!/usr/bin/env bash
# A remote list's target (BENCHMARKS.md, "A remote `list --json` against a bare curl"):
# `resv list --json` of 1,000 reservations from a resv-server within 1.5× of one bare `curl`
# of the same GET /reservations (one request, nothing done twice), for two builds side by
# side (before, after):
#
#   Benchmarks/list-remote.sh BEFORE_RESV AFTER_RESV BEFORE_SERVER AFTER_SERVER
#
# It is part 2 of Benchmarks/remote.sh ("old" is before, "new" after): each build's own
# server on a free loopback port and a temporary SQLite file, seeded with the same
# 1,000-line batch; hyperfine, 5 warm-ups and 30 runs a command; the medians of curl and of
# list --json for both builds, and their ratios. One build alone: give it twice.
set -euo pipefail
[ $# -eq 4 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
export PARTS=2
exec "$(dirname "$0")/remote.sh" "$@"
