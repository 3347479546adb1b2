/**
 * Client figure (docs/performance.md "The client: check --staged"), with the built binary end to end: `talentd check --staged`
 * on a real git repository with a staged 5,000-line diff across the languages the shipped catalog covers, every shipped talent
 * installed in the project and designated (73 of 75: one of each conflicting pair), against `talentd serve` on loopback, with
 * the findings report on (`POST /api/findings` to that server) and off (TALENTD_REPORT=0). Target: < 300 ms wall time per run.
 * Each run's wall time and the client process's CPU time (user + system). Floor: `talentd version` (process start alone).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BINARY, percentile, printTable, seedProject, startBinary } from "./lib";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
/** Added lines in all (BENCH_CLIENT_LINES), spread over the files below. */
const LINES = Number(process.env.BENCH_CLIENT_LINES ?? 5000);
/** Of each conflicting pair, the one left out (a project cannot hold both). */
const LEFT_OUT = new Set(["git-commit-messages", "pnpm-workspaces"]);

/** A few realistic lines per language, some of them what a shipped detector flags; cycled to fill each file. */
const SAMPLES: Record<string, string[]> = {
  "src/app/service{n}.ts": [
    "export async function load(id: string): Promise<Item | undefined> {",
    "  const rows = await db.select().from(items).where(eq(items.id, id));",
    "  console.log('loaded', rows.length);",
    "  const data: any = JSON.parse(body);",
    "  return rows[0] as unknown as Item;",
    "}",
    "// TODO: handle the empty case",
    "const url = `https://api.example.com/items/${id}`;",
    "element.innerHTML = userInput;",
    "await fetch(req.query.next as string);",
  ],
  "web/components/Widget{n}.tsx": [
    "export function Widget({ items }: Props) {",
    "  const [count, setCount] = useState(0);",
    "  useEffect(() => { setCount(items.length); });",
    '  return <div onClick={() => setCount(count + 1)}><img src="/logo.png" /></div>;',
    "}",
    "  return <ul>{items.map((i) => <li>{i.name}</li>)}</ul>;",
    "  <div dangerouslySetInnerHTML={{ __html: html }} />",
  ],
  "lib/util{n}.js": [
    "function parse(input) {",
    "  var result = eval(input);",
    "  return result == null ? [] : result;",
    "}",
    "module.exports = { parse };",
    "setTimeout(() => doWork(), 0);",
  ],
  "app/handlers{n}.py": [
    "def load(item_id: str) -> dict:",
    '    rows = cursor.execute(f"SELECT * FROM items WHERE id = {item_id}")',
    "    print(rows)",
    "    try:",
    "        return rows[0]",
    "    except:",
    "        pass",
    "import pickle",
    "data = pickle.loads(payload)",
    "    assert value is not None",
  ],
  "internal/server{n}.go": [
    "func (s *Server) Load(ctx context.Context, id string) (*Item, error) {",
    '\trows, err := s.db.Query("SELECT * FROM items WHERE id = " + id)',
    "\tif err != nil {",
    "\t\treturn nil, err",
    "\t}",
    '\tpanic("unreachable")',
    "\tfmt.Println(rows)",
    "}",
  ],
  "crates/core/src/lib{n}.rs": [
    "pub fn load(id: &str) -> Result<Item, Error> {",
    "    let item = store.get(id).unwrap();",
    '    println!("{:?}", item);',
    "    Ok(item.clone())",
    "}",
  ],
  "src/main/java/com/example/Service{n}.java": [
    "public class Service {",
    "    public Item load(String id) throws Exception {",
    '        String sql = "SELECT * FROM items WHERE id = " + id;',
    "        System.out.println(sql);",
    "        try { return repo.find(id); } catch (Exception e) { e.printStackTrace(); }",
    "        return null;",
    "    }",
    "}",
  ],
  "src/main/kotlin/Service{n}.kt": [
    "class Service(private val repo: Repo) {",
    "    fun load(id: String): Item = repo.find(id)!!",
    "    fun all() = runBlocking { repo.all() }",
    "}",
  ],
  "src/Api/Controller{n}.cs": [
    "public class ItemsController : ControllerBase {",
    "    public async Task<Item> Get(string id) {",
    '        var item = _db.Items.FromSqlRaw("SELECT * FROM Items WHERE Id = " + id).First();',
    "        return item;",
    "    }",
    "    public void Save() { _db.SaveChangesAsync().Wait(); }",
    "}",
  ],
  "db/migrations/00{n}_items.sql": [
    "CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL);",
    "ALTER TABLE items ADD COLUMN owner_id integer NOT NULL;",
    "CREATE INDEX items_owner ON items (owner_id);",
    "SELECT * FROM items WHERE name LIKE '%x%';",
    "DROP TABLE old_items;",
  ],
  "scripts/deploy{n}.sh": ["#!/bin/sh", "cd $DIR", "rm -rf $TARGET/*", "curl -s https://example.com/install.sh | sh", "echo done"],
  "styles/site{n}.css": [".item { color: #333 !important; }", "#main .list > li { margin: 0 }", "a:focus { outline: none; }"],
  "public/page{n}.html": ['<img src="logo.png">', '<div onclick="go()">Go</div>', '<a href="#" target="_blank">x</a>'],
  "deploy/k8s/app{n}.yaml": [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "spec:",
    "  containers:",
    "    - name: app",
    "      image: example/app:latest",
    "      securityContext: { privileged: true }",
  ],
  "infra/main{n}.tf": ['resource "aws_s3_bucket" "b" {', '  bucket = "example"', '  acl    = "public-read"', "}"],
  "services/api{n}/Dockerfile": [
    "FROM node:latest",
    "RUN apt-get update && apt-get install -y curl",
    "ADD . /app",
    'CMD ["node", "server.js"]',
  ],
  "docs/guide{n}.md": ["# Guide", "Click [here](http://example.com) to read more.", "Run `npm install` first."],
};

function git(cwd: string, args: string[]): void {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
}

/** A repository with one commit and LINES staged added lines: two files per language, each filled by cycling its samples. */
function stagedRepo(root: string): { repo: string; paths: string[] } {
  const repo = join(root, "repo");
  mkdirSync(repo, { recursive: true });
  git(repo, ["init", "-q", "-b", "main"]);
  git(repo, ["config", "user.email", "bench@example.com"]);
  git(repo, ["config", "user.name", "Bench"]);
  writeFileSync(join(repo, "README.md"), "# bench\n");
  git(repo, ["add", "."]);
  git(repo, ["commit", "-q", "-m", "base"]);
  const templates = Object.entries(SAMPLES);
  const files = templates.flatMap(([pattern, lines]) => [0, 1].map((n) => ({ path: pattern.replace("{n}", String(n)), lines })));
  const paths: string[] = [];
  files.forEach((f, i) => {
    const count = Math.floor(LINES / files.length) + (i < LINES % files.length ? 1 : 0);
    const text = Array.from({ length: count }, (_, l) => f.lines[l % f.lines.length]!).join("\n") + "\n";
    mkdirSync(join(repo, dirname(f.path)), { recursive: true });
    writeFileSync(join(repo, f.path), text);
    paths.push(f.path);
  });
  git(repo, ["add", "."]);
  return { repo, paths };
}

type Runs = { times: number[]; cpu: number[]; code: number; stdout: string; stderr: string };

async function runOnce(args: string[], cwd: string, env: Record<string, string>) {
  const t0 = performance.now();
  const proc = Bun.spawn([BINARY, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: cwd, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const ms = performance.now() - t0;
  const usage = proc.resourceUsage();
  const cpu = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : NaN;
  return { ms, cpu, code, stdout, stderr };
}

/** The commands in rotation (one run of each per round, after 3 warm-up rounds), so load moves them alike. */
async function interleaved(commands: { args: string[]; env: Record<string, string> }[], cwd: string): Promise<Runs[]> {
  const out: Runs[] = commands.map(() => ({ times: [], cpu: [], code: 0, stdout: "", stderr: "" }));
  for (let round = -3; round < RUNS; round++) {
    for (const [i, c] of commands.entries()) {
      const r = await runOnce(c.args, cwd, c.env);
      if (round < 0) continue; // warm-up: page cache, the server's caches
      out[i]!.times.push(r.ms);
      out[i]!.cpu.push(r.cpu);
      Object.assign(out[i]!, { code: r.code, stdout: r.stdout, stderr: r.stderr });
    }
  }
  for (const r of out) {
    r.times.sort((a, b) => a - b);
    r.cpu.sort((a, b) => a - b);
  }
  return out;
}

export async function benchClient(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "talentd-bench-client-"));
  const ids = readdirSync(join(import.meta.dir, "..", "talents")).filter((d) => !d.startsWith("_") && !LEFT_OUT.has(d));
  const server = await startBinary({});
  try {
    const seeded = await seedProject(server.base);
    const installed = await fetch(`${server.base}/web/projects/${seeded.projectId}/talents`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.base, cookie: seeded.cookie },
      body: JSON.stringify({ talents: ids }),
    });
    if (installed.status !== 201) throw new Error(`install: ${installed.status} ${await installed.text()}`);
    const { repo } = stagedRepo(root);
    const env = { TALENTD_URL: server.base, TALENTD_KEY: seeded.key };
    // every installed talent designated: those the paths do not designate by triggers or language, by --talent
    const args = ["check", "--staged", "--json", ...ids.flatMap((id) => ["--talent", id])];
    const [on, off, version] = await interleaved(
      [
        { args, env: { ...env, TALENTD_REPORT: "1" } },
        { args, env: { ...env, TALENTD_REPORT: "0" } },
        { args: ["version"], env: {} },
      ],
      repo,
    );
    let out: { checked: { lines: number; files: number; rules: number }; findings: unknown[] };
    try {
      out = JSON.parse(on!.stdout);
    } catch {
      throw new Error(`check printed no JSON (exit ${on!.code}): ${on!.stdout.slice(-300)} ${on!.stderr.slice(0, 500)}`);
    }
    if (out.checked.lines !== LINES) throw new Error(`expected ${LINES} added lines, got ${out.checked.lines}`);
    if (on!.stderr.includes("not reported")) throw new Error(`the report failed: ${on!.stderr}`);
    const row = (name: string, r: Runs) => [
      name,
      RUNS,
      r.times[0]!.toFixed(0),
      percentile(r.times, 50).toFixed(0),
      percentile(r.times, 90).toFixed(0),
      r.times.at(-1)!.toFixed(0),
      percentile(r.cpu, 50).toFixed(0),
      percentile(r.cpu, 90).toFixed(0),
    ];
    const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
    const verdict = (r: Runs) => (percentile(r.times, 50) < 300 ? "met" : "**not met**");
    printTable(
      `talentd check --staged: ${out.checked.lines} added lines in ${out.checked.files} files, ${ids.length} talents designated, ` +
        `${out.checked.rules} rules with detectors, ${out.findings.length} findings; load average ${load} on ${navigator.hardwareConcurrency} ` +
        `cores (target < 300 ms wall: report on p50 ${verdict(on!)}, off p50 ${verdict(off!)})`,
      ["command (built binary, per run)", "runs", "min ms", "p50 ms", "p90 ms", "max ms", "CPU p50 ms", "CPU p90 ms"],
      [row("check --staged, report on", on!), row("check --staged, report off", off!), row("version (process start alone)", version!)],
    );
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchClient();
