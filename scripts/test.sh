#!/usr/bin/env bash
# The test suite as `npm test` runs it (after tsc): every test file on libSQL, spread over worker
# processes, then the files listed in test/postgres-files.txt again with TEST_DATABASE=postgres
# (blank lines and lines starting with # skipped). Both passes run even when the first fails; the
# exit status is non-zero when either failed. Each pass ends with bun's own ` N pass` / ` N fail`
# lines: .ci/run adds them up.
#
# bun test --parallel: the slowest files start first, from the durations in test/timings.json
# (`npm run test:timings` measures them again). --no-isolate: a worker keeps its modules from file
# to file, as one serial bun test does, so the shipped catalog is built once per worker, not once
# per file. --timeout=30000: bunfig.toml's [test] timeout is not applied by this bun (a test gets
# 5 s without the flag); a test that sets its own timeout keeps it.
#
# TEST_WORKERS sets the number of worker processes (default 2: this machine has 2 cores and most
# tests wait on servers, processes and the browser). Without PostgreSQL's server binaries the
# second pass is skipped with a message, except under CI=true where that is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
bun=(bun)
command -v bun >/dev/null 2>&1 || bun=(npx --no-install bun)
workers="${TEST_WORKERS:-2}"
args=(test --timeout=30000 --parallel="$workers" --no-isolate --timings=test/timings.json)

# a list file's paths: one a line; blank lines and lines starting with # are skipped
listed() { grep -Ev '^[[:space:]]*(#|$)' "$1" | sed 's/[[:space:]]*$//'; }
mapfile -t serial_files < <(listed test/serial-files.txt)
mapfile -t pg_files < <(listed test/postgres-files.txt)

status=0
# pass LABEL [FILE…]: the files (none: every test file) over the workers, except those of
# test/serial-files.txt, which then run one at a time
pass() {
  local label=$1 f
  shift
  local spread=() alone=()
  if [ $# -eq 0 ]; then
    spread=("${serial_files[@]/#/--path-ignore-patterns=}")
    alone=("${serial_files[@]/#/./}")
  else
    for f in "$@"; do
      if printf '%s\n' "${serial_files[@]}" | grep -qxF "$f"; then alone+=("./$f"); else spread+=("./$f"); fi
    done
  fi
  if [ $# -eq 0 ] || [ ${#spread[@]} -gt 0 ]; then
    echo "== $label, over $workers workers (those of test/serial-files.txt after it, alone)"
    "${bun[@]}" "${args[@]}" "${spread[@]}" || status=1
  fi
  if [ ${#alone[@]} -gt 0 ]; then
    echo "== $label: the ${#alone[@]} of test/serial-files.txt, one at a time"
    "${bun[@]}" test --timeout=30000 "${alone[@]}" || status=1
  fi
}

pass "libSQL: every test file"
if [ ${#pg_files[@]} -eq 0 ]; then
  echo "== PostgreSQL: test/postgres-files.txt lists no file"
elif ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "== PostgreSQL: the server binaries are absent under CI=true (.ci/run installs postgresql)"
    status=1
  else
    echo "== PostgreSQL: skipped, the server binaries are absent (apt-get install -y postgresql)"
  fi
else
  TEST_DATABASE=postgres pass "PostgreSQL: the ${#pg_files[@]} files of test/postgres-files.txt" "${pg_files[@]}"
fi
exit "$status"
