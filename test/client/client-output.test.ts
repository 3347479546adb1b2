/**
 * The client prints only text and reads bounded answers: server text (titles, ids, error
 * messages) reaches a member's terminal with its control characters shown inert; an answer past
 * the cap is given up while streaming; a malformed answer is exit 2. And the validator refuses
 * control characters in every field of a talent, so the server never serves them to begin with.
 * The servers here are real HTTP servers on 127.0.0.1: a hostile one the client must survive,
 * and talentd itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { gitRepo, removeRepos, stage, talentd } from "../client-support";
import { orgWithProject, runCli, talentMd, tempDir, testEnv, writeFiles, type TestEnv } from "../helpers";

const ESC = "\u001b";
/** ESC[8m hides what follows; ESC]52;c;… writes the clipboard; CSI as one C1 byte; a bidi override. */
const HOSTILE = `${ESC}[8mhidden${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007 \u009b31m red \u202egnp.exe`;
/** Every character a terminal may obey: no output of the client may hold one. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

type Route = (req: Request) => Response | Promise<Response>;
let routes: Record<string, Route> = {};
let hostile: ReturnType<typeof Bun.serve>;
const env = () => ({ TALENTD_URL: `http://127.0.0.1:${hostile.port}`, TALENTD_KEY: "svc_pk_test", TALENTD_TIMEOUT: "5" });

beforeAll(() => {
  hostile = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      (routes[new URL(req.url).pathname] ?? (() => Response.json({ error: "not_found", message: "no" }, { status: 404 })))(req),
  });
});
afterAll(() => {
  hostile.stop(true);
  removeRepos();
});

/** A server whose talent titles, ids, procedure and errors carry terminal control sequences. */
function hostileTalentd(): void {
  const rule = {
    id: "EV-001",
    severity: "blocking",
    title: `Rule ${HOSTILE}`,
    check: `Check ${HOSTILE}`,
    detect: [{ pattern: "any", files: ["**/*.ts"] }],
  };
  const obligation = { id: "evil", kind: "talent", version: "1.0.0", title: `Talent ${HOSTILE}`, verdictRequired: true, rules: [rule] };
  routes = {
    "/api/prepare-task/designable": () => Response.json({ talents: [{ id: "evil", triggers: { files: ["**/*.ts"] } }] }),
    "/api/prepare-task": () =>
      Response.json({ resolutionId: "res_1", talents: [{ id: "evil", version: "1.0.0" }], tokens: 10, prerequisites: [], conflicts: [] }),
    "/api/validation/playbook": () =>
      Response.json({
        resolutionId: `res_1${ESC}[2J`,
        procedure: [`Step ${HOSTILE}`],
        obligations: [obligation],
        detail: { id: "evil", version: "1.0.0", rules: [rule], tests: [{ rule: "EV-001", pass: `ok ${HOSTILE}`, fail: "any" }] },
      }),
    "/api/doctor": () =>
      Response.json({ error: `bad${ESC}[2J`, message: `Refused ${HOSTILE}` }, { status: 400, headers: { "x-request-id": "req_1" } }),
  };
}

describe("the client prints only text: server text reaches the terminal with C0/C1 controls and bidi overrides shown inert", () => {
  test("talentd playbook (text, --json) holds no control byte; the hostile title is shown escaped, and --json still parses to the server's value", async () => {
    hostileTalentd();
    const repo = gitRepo();
    const text = await talentd(["playbook", "res_1"], repo, env());
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(UNSAFE);
    expect(text.stdout).toContain("Rule \\u001b[8mhidden\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007 \\u009b31m red \\u202egnp.exe");
    expect(text.stdout).toContain("Audit playbook of res_1\\u001b[2J");
    const json = await talentd(["playbook", "res_1", "--json"], repo, env());
    expect(json.code).toBe(0);
    expect(json.stdout).not.toMatch(UNSAFE);
    expect(JSON.parse(json.stdout).obligations[0].rules[0].title).toBe(`Rule ${HOSTILE}`);
  });

  test("talentd check prints the finding's hostile title inert (exit 1: a blocking finding), its summary line too", async () => {
    hostileTalentd();
    const repo = gitRepo();
    stage(repo, { "a.ts": "const x: any = 1;\n" });
    const r = await talentd(["check", "--staged"], repo, env());
    expect(r.code).toBe(1);
    expect(r.stdout).toStartWith("a.ts:1 EV-001 blocking Rule \\u001b[8mhidden");
    expect(r.stdout + r.stderr).not.toMatch(UNSAFE);
    expect(r.stderr).toContain("resolution res_1");
    const json = await talentd(["check", "--staged", "--json"], repo, env());
    expect(json.code).toBe(1);
    expect(json.stdout).not.toMatch(UNSAFE);
    expect(JSON.parse(json.stdout).findings[0].title).toBe(`Rule ${HOSTILE}`);
  });

  test("a server's error message and code reach stderr inert, and short (exit 2)", async () => {
    hostileTalentd();
    const r = await talentd(["lock"], gitRepo(), env());
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(UNSAFE);
    expect(r.stderr).toBe(
      "talentd: GET /api/doctor failed: 400 bad\\u001b[2J: Refused \\u001b[8mhidden\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007 \\u009b31m red \\u202egnp.exe\n",
    );
    routes["/api/doctor"] = () => Response.json({ error: "x", message: "y".repeat(100_000) }, { status: 400 });
    const long = await talentd(["lock"], gitRepo(), env());
    expect(long.code).toBe(2);
    expect(long.stderr.length).toBeLessThan(700);
  });
});

describe("the client reads bounded answers: past 32 MiB it stops reading; a malformed answer is exit 2, not 1 (findings)", () => {
  test("an endless answer (chunked, no length) is given up while streaming: exit 2 in seconds, the server sent far less than it offered", async () => {
    const MiB = 1024 * 1024;
    const chunk = new Uint8Array(MiB).fill(0x20);
    let sent = 0;
    const offered = 256 * MiB;
    routes = {
      "/api/doctor": () =>
        new Response(
          new ReadableStream({
            pull(c) {
              if (sent >= offered) return c.close();
              sent += chunk.byteLength;
              c.enqueue(chunk);
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    };
    const started = Date.now();
    const r = await talentd(["lock"], gitRepo(), { ...env(), TALENTD_TIMEOUT: "60" });
    expect(r.stderr).toBe(
      `talentd: the answer of ${env().TALENTD_URL} to GET /api/doctor is larger than 32 MiB: not a talentd answer (is TALENTD_URL right?)\n`,
    );
    expect(r.code).toBe(2);
    expect(sent).toBeLessThan(96 * MiB);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  test("a Content-Length over the cap is refused before the body is read (the server sends none of it)", async () => {
    const head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 67108864\r\n\r\n{";
    const raw = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: (s) => void s.write(head) } });
    try {
      const started = Date.now();
      const r = await talentd(["lock"], gitRepo(), { ...env(), TALENTD_URL: `http://127.0.0.1:${raw.port}` });
      expect(r.stderr).toBe(
        `talentd: the answer of http://127.0.0.1:${raw.port} to GET /api/doctor is larger than 32 MiB: not a talentd answer (is TALENTD_URL right?)\n`,
      );
      expect(r.code).toBe(2);
      expect(Date.now() - started).toBeLessThan(4_000); // not the 5 s timeout
    } finally {
      raw.stop(true);
    }
  });

  test("not JSON, a JSON array, not UTF-8, and an object of the wrong shape: each one line and exit 2", async () => {
    const repo = gitRepo();
    const answers: [Route, string][] = [
      [() => new Response("<html>proxy</html>", { headers: { "content-type": "text/html" } }), "(HTTP 200, not JSON)"],
      [() => Response.json([1, 2]), "(HTTP 200, not a JSON object)"],
      [() => new Response(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), "(HTTP 200, not UTF-8 text)"],
      [() => Response.json({ resolutionId: "res_1", obligations: "none" }), "playbook: the server's answer is not what talentd"],
    ];
    for (const [answer, says] of answers) {
      routes = { "/api/validation/playbook": answer };
      const r = await talentd(["playbook", "res_1"], repo, env());
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(says);
      expect(r.stderr.split("\n").length).toBe(2);
    }
  });
});

describe("the validator refuses control characters in every field (talents lint, expertise publication)", () => {
  const evil = talentMd(
    "evil-one",
    {
      summary: '"Covers evil. Designate \\x9b31m when needed."',
      rules: `
  - id: AB-001
    severity: blocking
    title: "Do \\e[8mhidden\\e]52;c;ZXZpbA==\\a it."
    check: Look for it.
    detect:
      - pattern: "bad\\u0008\\\\("
  - id: AB-002
    severity: advisory
    title: "Read \\u202Eright to left"
    check: Look.
  - id: AB-003
    severity: advisory
    title: Do the third thing.
    check: Look.`,
      tests: `
  - rule: AB-001
    pass: "good()"
    fail: "bad\\u0008("`,
    },
    `Body with a clipboard write \u001b]52;c;ZXZpbA==\u0007.`,
  );

  test("talents lint names each field with a control character (exit 1), and its own output holds none", async () => {
    const { dir, cleanup } = tempDir();
    try {
      // a SKILL.md's metadata values are JSON texts: what they decode to is checked too, named where it was written
      const rules = [1, 2, 3].map((n) => ({ id: `AB-00${n}`, severity: "advisory", title: n === 1 ? `x ${ESC}[8m y` : "t", check: "c" }));
      const skill = `---\nname: evil-skill\ndescription: Does things.\nmetadata:\n  rules: '${JSON.stringify(rules)}'\n---\nBody.\n`;
      writeFiles(join(dir, "lint"), { "evil-one/TALENT.md": evil, "evil-one/notes.md": "a\r\nb\u001bc\n", "evil-skill/SKILL.md": skill });
      const r = await runCli(["talents", "lint", join(dir, "lint")], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toMatch(UNSAFE);
      const fields = r.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(": ").slice(1).join(": "));
      expect(fields).toContain("summary: contains a control character (U+009B at character 24): write plain text");
      expect(fields).toContain("rules[AB-001].title: contains a control character (U+001B at character 4): write plain text");
      expect(fields).toContain("rules[AB-001].detect[0].pattern: contains a control character (U+0008 at character 4): write plain text");
      expect(fields).toContain("rules[AB-002].title: contains a bidirectional-text control (U+202E at character 6): write plain text");
      expect(fields).toContain("tests[0].fail: contains a control character (U+0008 at character 4): write plain text");
      expect(fields).toContain("body: contains a control character (U+001B at character 29): write plain text");
      expect(fields).toContain("content: contains a control character (U+001B at character 5): write plain text");
      expect(r.stdout).toContain(
        "evil-skill/SKILL.md: metadata.rules[AB-001].title: contains a control character (U+001B at character 3): write plain text\n",
      );
    } finally {
      cleanup();
    }
  });

  let app: TestEnv;
  beforeAll(async () => {
    app = await testEnv();
  });
  afterAll(() => app.close());

  test("publishing an expertise whose rule title holds ESC[8m is 400 validation_failed naming the field; a confirmed trigger with one too", async () => {
    const { owner } = await orgWithProject(app);
    const created = await owner.post("/web/orgs/current/expertises", { slug: "evil-one", content: evil });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const bad = await owner.put(`/web/orgs/current/expertises/${id}/triggers`, { files: [`src/**\u001b[8m`], keywords: ["ok"] });
    expect([bad.status, bad.body.error]).toEqual([400, "validation_failed"]);
    expect(bad.body.issues).toEqual([
      { path: "files[0]", message: "contains a control character (U+001B at character 7): write plain text" },
    ]);
    expect((await owner.put(`/web/orgs/current/expertises/${id}/triggers`, { files: ["src/**"], keywords: ["ok"] })).status).toBe(200);
    const published = await owner.post(`/web/orgs/current/expertises/${id}/publish`);
    expect([published.status, published.body.error]).toEqual([400, "validation_failed"]);
    const paths = (published.body.issues as { path: string }[]).map((i) => i.path.split(": ")[1]);
    expect(paths).toEqual(expect.arrayContaining(["summary", "rules[AB-001].title", "rules[AB-002].title", "body"]));
  });
});
