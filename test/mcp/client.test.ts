/** The client label of traces: clientInfo at initialize, carried by the session id afterwards. */
import { describe, expect, test } from "bun:test";
import { clientInfoLabel, clientLabel, labelFromSessionId, sessionIdFor } from "../../src/mcp/client";

describe("client labels", () => {
  test("clientInfo → name/version, header-safe, bounded", () => {
    expect(clientInfoLabel({ name: "Claude Code", version: "2.0.1" })).toBe("Claude Code/2.0.1");
    expect(clientInfoLabel({ name: "cursor" })).toBe("cursor");
    expect(clientInfoLabel({ name: "é\nx", version: "1" })).toBe("??x/1");
    expect(clientInfoLabel({ name: "x".repeat(500), version: "1" })!.length).toBe(102);
    expect(clientInfoLabel(null)).toBeNull();
    expect(clientInfoLabel({ version: "1" })).toBeNull();
  });

  test("the session id carries the label, visible ASCII only, unique per initialize", () => {
    const a = sessionIdFor("Claude Code/2.0.1");
    expect(a).toMatch(/^[\x21-\x7e]+$/);
    expect(a).not.toBe(sessionIdFor("Claude Code/2.0.1"));
    expect(labelFromSessionId(a)).toBe("Claude Code/2.0.1");
    for (const bad of [
      null,
      "",
      "c1.",
      "other-session",
      "c1.!!.AAAAAAAAAAAAAAAA",
      `c1.${Buffer.from("a\nb").toString("base64url")}.AAAAAAAAAAAAAAAA`,
    ])
      expect(labelFromSessionId(bad)).toBeNull();
  });

  test("order: initialize's clientInfo, then the session id, then the User-Agent", () => {
    const sid = sessionIdFor("vscode/1.99");
    const req = (h: Record<string, string>) => new Request("http://x/mcp", { headers: h });
    expect(clientLabel(req({ "mcp-session-id": sid, "user-agent": "node" }), { name: "inspector", version: "0.1" })).toBe("inspector/0.1");
    expect(clientLabel(req({ "mcp-session-id": sid, "user-agent": "node" }), undefined)).toBe("vscode/1.99");
    expect(clientLabel(req({ "user-agent": "node" }), undefined)).toBe("node");
    expect(clientLabel(req({}), undefined)).toBeNull();
  });
});
