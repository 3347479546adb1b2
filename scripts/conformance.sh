#!/usr/bin/env bash
# The official MCP conformance suite (pinned in package.json) against the built binary: run it
# from an empty folder on a free port, then scripts/conformance.ts signs up, makes a key and runs
# the scenarios of both protocol eras through a local proxy that adds the key. Run by .ci/run after
# the smoke test; exit 1 when a check fails.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="$repo/dist/talentd"
[ -x "$bin" ] || { echo "conformance: $bin is missing (bun run build)"; exit 1; }
work=$(mktemp -d)
port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
cd "$work"
AUTO_APPROVE_ORGS=true ACCESS_LOG=false "$bin" serve --port "$port" --host 127.0.0.1 --base-url "http://127.0.0.1:$port" >"$work/out.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
code=0
(cd "$repo" && npx --no-install bun scripts/conformance.ts "http://127.0.0.1:$port") || code=$?
if [ "$code" != 0 ]; then echo "conformance: FAILED"; tail -20 "$work/out.log"; exit 1; fi
