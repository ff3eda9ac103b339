#!/usr/bin/env bash
# The compiled test suite (npm test, npm run test:quick), in a temporary folder of its own:
# TMPDIR points into it for every test file (each runs in its own process, and os.tmpdir() and
# Python's tempfile read TMPDIR), and it is removed when the run ends, passed or failed, so the
# suite's scratch folders (about 1,500 a run) never pile up in /tmp.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d "${TMPDIR:-/tmp}/midpack-tests-XXXXXX")
trap 'rm -rf "$root"' EXIT
mapfile -t files < <(find dist/test -name '*.test.js' | sort)
[ "${#files[@]}" -gt 0 ] || { echo "run-tests: no compiled tests under dist/test (build first)" >&2; exit 1; }
TMPDIR="$root" node --test --test-concurrency=3 "${files[@]}"
