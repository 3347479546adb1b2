#!/usr/bin/env bash
# Smoke test of the built binary: run it from an empty folder with no node_modules on a free
# port, check /healthz, /readyz (≥ 40 talents), /metrics and a scheduled backup, stop it with
# SIGTERM, expect exit 0; then doctor --local and restore on the stopped folder.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="$repo/dist/talentd"
[ -x "$bin" ] || { echo "smoke: $bin is missing (bun run build)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
cd "$work"
# configuration is flags > env > defaults: a stray .env in the folder must not be read
printf 'PORT=not-a-port\n' > "$work/.env"
# a metrics token and a backup schedule: /metrics answers, and the first scheduled backup (on the
# backup thread, a second entrypoint of the binary) is written at start
metrics_token=smoke-metrics-token-0123456789
# an SMTP sink (smtp-server, as the tests use) and an IdP certificate: the smoke loop sends an
# invitation mail and configures SAML, so the modules loaded on first use run from the binary
smtp_port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
(cd "$repo" && exec node -e 'const { SMTPServer } = require("smtp-server"); new SMTPServer({ authOptional: true, disabledCommands: ["STARTTLS"], onData(s, _session, cb) { s.resume(); s.on("end", () => cb()); } }).listen(Number(process.argv[1]), "127.0.0.1");' "$smtp_port") &
smtp_pid=$!
trap 'kill "$smtp_pid" 2>/dev/null; rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/idp.key" -out "$work/idp.pem" -days 2 -subj "/CN=idp.smoke.example" >/dev/null 2>&1
AUTO_APPROVE_ORGS=true METRICS_TOKEN="$metrics_token" BACKUP_INTERVAL=1h SMTP_URL="smtp://127.0.0.1:$smtp_port" "$bin" serve --port "$port" --host 127.0.0.1 --base-url "http://127.0.0.1:$port" >"$work/out.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
health=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")
ready=$(curl -s "http://127.0.0.1:$port/readyz")
htmx=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/assets/htmx.min.js")
# the client download the generated CI jobs use: the served binary runs
dl_code=0
curl -fsS -o "$work/talentd-dl" "http://127.0.0.1:$port/download/talentd" && chmod +x "$work/talentd-dl" && "$work/talentd-dl" version | grep -q '^talentd ' || dl_code=$?
metrics=$(curl -s -H "Authorization: Bearer $metrics_token" "http://127.0.0.1:$port/metrics" | grep -c '^talentd_http_requests_total{' || true)
loop_code=0
(cd "$(dirname "$bin")/.." && SMOKE_IDP_CERT="$work/idp.pem" npx --no-install bun scripts/smoke-loop.ts "http://127.0.0.1:$port") || loop_code=$?
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
talents=$(node -e 'try{console.log(JSON.parse(process.argv[1]).catalog.talents)}catch{console.log(0)}' "$ready")
backups=$(ls "$work/data/backups" 2>/dev/null | grep -c '^talentd-.*\.db$' || true)
echo "smoke: /healthz $health, /readyz $ready, htmx $htmx, download $dl_code, agent loop $loop_code, /metrics $metrics request series, $backups scheduled backup(s), exit $code"
if [ "$health" != 200 ] || [ "$talents" -lt 40 ] || [ "$htmx" != 200 ] || [ "$dl_code" != 0 ] || [ "$loop_code" != 0 ] || [ "$code" != 0 ] || [ ! -f "$work/data/talentd.db" ] || [ "$metrics" -lt 1 ] || [ "$backups" -lt 1 ]; then
  echo "smoke: FAILED"; cat "$work/out.log"; exit 1
fi
# the validator's detailed YAML messages come from a module loaded on demand: check it is in the binary
mkdir -p "$work/lint/broken"
printf -- '---\nid: broken\ntitle: [unclosed\n---\nbody\n' > "$work/lint/broken/TALENT.md"
lint_code=0
lint_out=$("$bin" talents lint "$work/lint" 2>/dev/null) || lint_code=$?
if [ "$lint_code" != 1 ] || ! printf '%s' "$lint_out" | grep -q "front matter: invalid YAML"; then
  echo "smoke: FAILED: talents lint on a broken folder gave exit $lint_code: $lint_out"; exit 1
fi
# the stopped server's folder: doctor finds no failure (0, or 3 for warnings), restore puts the backup back
doctor_code=0
(cd "$work" && "$bin" doctor --local >"$work/doctor.out" 2>&1) || doctor_code=$?
if [ "$doctor_code" != 0 ] && [ "$doctor_code" != 3 ]; then echo "smoke: FAILED: doctor --local exit $doctor_code"; cat "$work/doctor.out"; exit 1; fi
restore_out=$(cd "$work" && "$bin" restore "$work/data/backups/$(ls "$work/data/backups" | grep '^talentd-' | head -1)" 2>&1) || { echo "smoke: FAILED: restore: $restore_out"; exit 1; }
# the README's "./dist/talentd --help"
"$bin" --help | grep -q "backup FILE" || { echo "smoke: FAILED: --help does not list the commands"; exit 1; }
# the client in the binary: a detector that is not a valid regex is a lint error naming the rule
mkdir -p "$work/lint2/bad-detect"
printf -- '---\nid: bad-detect\ntitle: T\nsummary: Covers a thing. Designate when needed.\nversion: 1.0.0\nroles: [backend]\nbudget: 400\nrules:\n  - {id: BD-001, severity: blocking, title: T1., check: C1., detect: [{pattern: "bad(("}]}\n  - {id: BD-002, severity: advisory, title: T2., check: C2.}\n  - {id: BD-003, severity: advisory, title: T3., check: C3.}\ntests:\n  - {rule: BD-001, pass: "good()", fail: "bad(("}\n---\nbody\n' > "$work/lint2/bad-detect/TALENT.md"
lint2=$("$bin" talents lint "$work/lint2" 2>/dev/null || true)
printf '%s' "$lint2" | grep -q "rules\[BD-001\].detect\[0\].pattern: invalid regular expression" || { echo "smoke: FAILED: lint did not report the bad detector: $lint2"; exit 1; }
# a client command with no server configured: one line, exit 2, no hang
client_code=0
(cd "$work" && env -u TALENTD_URL -u TALENTD_KEY "$bin" lock >/dev/null 2>&1) || client_code=$?
[ "$client_code" = 2 ] || { echo "smoke: FAILED: talentd lock without TALENTD_URL gave exit $client_code"; exit 1; }
echo "smoke: ok ($talents talents; lint reports broken YAML and a bad detector; doctor exit $doctor_code; restore of a scheduled backup; --help lists the commands; the served binary runs; the client exits 2 unconfigured)"
