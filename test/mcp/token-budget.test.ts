/**
 * What a model is shown in one agent loop over MCP (docs/performance.md "Tokens of one agent
 * loop"): the six-talent loop of bench/tokenLoop.ts, driven by SDK v2's client on the shipped
 * catalog, held to a budget — a size, not a time. Beside it, what each answer leaves out for the
 * model and where it went: the attestation and the digests in the result's `_meta` (both eras), one
 * talent's detail without the playbook, its detectors or the attestation; the key API's answers keep them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { measureLoop, shownTotal, SIX, tokensOf } from "../../bench/tokenLoop";
import { createKey, orgWithProject } from "../helpers";
import { liveEnv, type LiveEnv } from "../mcp-support";

/** The six-talent loop measured 19,537 tokens (2026-12-02); the budget leaves ~10% for wording and catalog edits. */
const SIX_TALENT_BUDGET = 21_500;

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
});

/** A fresh project with a key of every scope, nothing installed. */
async function freshProject() {
  const o = await orgWithProject(live.env);
  const key = (await createKey(o.owner, o.project.id, ALL)).value;
  return { ...o, key };
}

async function v2Client(projectId: string, key: string, era: "modern" | "legacy"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${live.base}/mcp/${projectId}`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client(
    { name: "budget-agent", version: "1" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(transport);
  return client;
}

const textOf = (r: { content: unknown }) => (r.content as { type: string; text: string }[])[0]!.text;

describe("one agent loop over MCP stays within its token budget", () => {
  test(`the six-talent loop (discovery, install, prepare, playbook, six details) shows the model at most ${SIX_TALENT_BUDGET} tokens (characters / 4)`, async () => {
    const p = await freshProject();
    const client = await v2Client(p.project.id, p.key, "modern");
    try {
      const steps = await measureLoop(client, SIX);
      expect(steps.map((s) => s.step)).toEqual([
        "instructions",
        "tools/list",
        "discovery",
        "install",
        "prepare",
        "playbook",
        ...SIX.map((t) => `detail ${t}`),
      ]);
      expect(tokensOf(shownTotal(steps))).toBeLessThanOrEqual(SIX_TALENT_BUDGET);
    } finally {
      await client.close();
    }
  });
});

describe("nothing shown twice, nothing opaque shown at all", () => {
  let p: Awaited<ReturnType<typeof freshProject>>;
  let resolutionId: string;
  let apiAttestation: string;
  let apiDigests: Record<string, string>;
  beforeAll(async () => {
    p = await freshProject();
    await p.owner.post(`/web/projects/${p.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const prepared = await live.env.request("/api/prepare-task", {
      method: "POST",
      headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict", "javascript-base"] }),
    });
    const body = await prepared.json();
    resolutionId = body.resolutionId;
    apiAttestation = body.attestation;
    apiDigests = Object.fromEntries(body.talents.map((t: { id: string; digest: string }) => [t.id, t.digest]));
    expect(apiAttestation).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  for (const era of ["modern", "legacy"] as const) {
    test(`${era}: prepare, the playbook and a recorded report carry the attestation in the result's _meta["talentd/attestation"] and the digests in _meta["talentd/digests"], never in the text or structuredContent`, async () => {
      const client = await v2Client(p.project.id, p.key, era);
      try {
        const prepared = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: ["typescript-strict"] } });
        const playbook = await client.callTool({ name: "svc_validate", arguments: { resolutionId } });
        const report = await client.callTool({
          name: "svc_record_validation",
          arguments: { submissionId: `sub-${era}`, resolutionId, expertiseResults: [{ id: "typescript-strict", verdict: "pass" }] },
        });
        for (const r of [prepared, playbook, report]) {
          expect(r.isError).toBeFalsy();
          for (const shown of [textOf(r), JSON.stringify(r.structuredContent)]) {
            expect(shown).not.toContain("attestation");
            expect(shown).not.toContain("sha256:");
          }
          expect(r._meta?.["talentd/attestation"]).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
        }
        // the playbook's are the resolution's, as the key API serves them
        expect(playbook._meta?.["talentd/attestation"]).toBe(apiAttestation);
        expect(playbook._meta?.["talentd/digests"]).toEqual(apiDigests);
        expect(prepared._meta?.["talentd/digests"]).toEqual({ "typescript-strict": apiDigests["typescript-strict"] });
      } finally {
        await client.close();
      }
    });
  }

  test("a talent's detail over MCP: its rules with their checks, its tests and one next step — not the playbook index, not its detectors, not the attestation; its digest in _meta", async () => {
    const client = await v2Client(p.project.id, p.key, "modern");
    try {
      const r = await client.callTool({ name: "svc_validate", arguments: { resolutionId, talent: "typescript-strict" } });
      const answer = JSON.parse(textOf(r));
      expect(Object.keys(answer).sort()).toEqual(["detail", "next", "resolutionId"]);
      expect(Object.keys(answer.detail).sort()).toEqual(["id", "kind", "rules", "summary", "tests", "title"]);
      expect(answer.detail.rules.length).toBeGreaterThan(0);
      for (const rule of answer.detail.rules) expect(Object.keys(rule).sort()).toEqual(["check", "id", "severity", "title"]);
      expect(answer.detail.tests.length).toBeGreaterThan(0);
      expect(answer.next).toContain(`svc_validate with resolutionId=${resolutionId}, talent=<id>`);
      expect(r.structuredContent).toEqual(answer);
      expect(r._meta?.["talentd/attestation"]).toBeUndefined();
      expect(r._meta?.["talentd/digests"]).toEqual({ "typescript-strict": apiDigests["typescript-strict"] });
    } finally {
      await client.close();
    }
  });

  test("the key API keeps its documented answers: the detail after the playbook index, with detectors and the attestation", async () => {
    const r = await live.env.request(`/api/validation/playbook?resolutionId=${resolutionId}&talent=typescript-strict`, {
      headers: { authorization: `Bearer ${p.key}` },
    });
    const body = await r.json();
    expect(body.attestation).toBe(apiAttestation);
    expect(body.procedure.length).toBeGreaterThan(0);
    expect(body.obligations.map((o: { id: string }) => o.id)).toEqual(["typescript-strict", "javascript-base"]);
    expect(body.detail.digest).toMatch(/^sha256:/);
    expect(body.detail.rules.some((rule: { detect?: unknown }) => rule.detect !== undefined)).toBe(true);
  });
});
