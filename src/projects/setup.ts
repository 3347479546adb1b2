/**
 * The connection kit of a project (docs/connection-kit.md: an .mcp.json and a stub instruction file;
 * docs/api.md "Connection kit, automation key, reading a file"): the MCP URL, a ready configuration for each agent client in the exact
 * format its own documentation gives (sources in docs/connection-kit.md), the AGENTS.md stub
 * that teaches an agent the loop, and what hooks and CI need. The MCP URL holds no secret:
 * interactive clients sign in with OAuth; only the automation key (POST …/token) is secret,
 * and it never appears here.
 */
import { mcpResource } from "../oauth/resource";
import type { KeyScope } from "../db/schema";

/** The scopes of a project's automation key (hooks and CI): the loop's reads, never a writer. */
export const AUTOMATION_SCOPES: KeyScope[] = ["prepare_task", "validate", "deepen", "doctor", "catalog"];
export const AUTOMATION_KEY_NAME = "automation (hooks and CI)";

export interface ClientConfig {
  id: string;
  name: string;
  /** A command that adds the server, when the client has one. */
  command?: string;
  /** Where the configuration goes (relative to the repository, or ~ for the user's). */
  file: string;
  /** The exact file content for this server alone (merge it into an existing file). */
  content: string;
  /** The client's documentation the format comes from. */
  docs: string;
}

/** The server's name in every client's configuration. */
export const SERVER_NAME = "talentd";

export function clientConfigs(mcpUrl: string): ClientConfig[] {
  const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";
  return [
    {
      id: "claude-code",
      name: "Claude Code",
      command: `claude mcp add --transport http ${SERVER_NAME} ${mcpUrl}`,
      file: ".mcp.json",
      content: json({ mcpServers: { [SERVER_NAME]: { type: "http", url: mcpUrl } } }),
      docs: "https://code.claude.com/docs/en/mcp",
    },
    {
      id: "cursor",
      name: "Cursor",
      file: ".cursor/mcp.json",
      content: json({ mcpServers: { [SERVER_NAME]: { url: mcpUrl } } }),
      docs: "https://cursor.com/docs/mcp",
    },
    {
      id: "vscode",
      name: "VS Code (GitHub Copilot)",
      file: ".vscode/mcp.json",
      content: json({ servers: { [SERVER_NAME]: { type: "http", url: mcpUrl } } }),
      docs: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
    },
    {
      id: "windsurf",
      name: "Windsurf",
      file: "~/.codeium/windsurf/mcp_config.json",
      content: json({ mcpServers: { [SERVER_NAME]: { serverUrl: mcpUrl } } }),
      docs: "https://docs.windsurf.com/windsurf/cascade/mcp",
    },
    {
      id: "codex",
      name: "Codex",
      command: `codex mcp add ${SERVER_NAME} --url ${mcpUrl}`,
      file: "~/.codex/config.toml",
      content: `[mcp_servers.${SERVER_NAME}]\nurl = ${JSON.stringify(mcpUrl)}\n`,
      docs: "https://developers.openai.com/codex/mcp",
    },
  ];
}

/** The instruction stub (AGENTS.md): the loop, in the words an agent acts on. */
export function instructionStub(project: { name: string }, mcpUrl: string): string {
  return `# Conventions for this repository (talentd)

This project's conventions are served by talentd (${mcpUrl}, MCP server "${SERVER_NAME}").
Follow this loop for every coding task:

1. **Before the task**, call \`svc_prepare_task\` with the ids of the talents the work touches
   (see \`svc_prepare_task\`'s designable list, or \`svc_doctor\`). Follow the compact guidance it
   returns and keep its \`resolutionId\`. Designate only what the task touches: only what is
   designated is served and reviewed. Nothing is guessed for you.
2. **During the task**, when the guidance points further (\`talent://\` links) or you need more,
   call \`svc_deepen\` with the \`uri\` (and the \`resolutionId\`) — read only what you need.
3. **After the task**, call \`svc_validate\` with the \`resolutionId\`: it lists exactly the
   obligations of what you were served. Compare your diff to each rule yourself (the diff never
   leaves this machine; ask \`svc_validate\` with \`talent\` for a rule's full check and tests),
   and fix every blocking violation.
4. **If the index lists private expertises** (\`verdictRequired\`), call
   \`svc_record_validation\` once with one final verdict per expertise, each with \`path:line\`
   evidence or the missing elements. Use a new \`submissionId\` for a new report; reuse one only
   to retry the identical report.

Project: ${project.name}. If a tool answers \`unknown_talents\`, the talent is not active in this
project: ask a person to install it (or use \`svc_install_talents\` if you are allowed to).
`;
}

/** Everything GET /web/projects/:id/setup answers. */
export function connectionKit(baseUrl: string, project: { id: string; name: string }) {
  const mcpUrl = mcpResource(baseUrl, project.id);
  return {
    mcpUrl,
    clients: clientConfigs(mcpUrl),
    instructions: { file: "AGENTS.md", content: instructionStub(project, mcpUrl) },
    automation: {
      env: {
        TALENTD_URL: baseUrl,
        TALENTD_KEY: "the automation key: POST /web/projects/:id/token (shown once; keep it in your CI's secrets)",
      },
      scopes: AUTOMATION_SCOPES,
      tokenRoute: `POST /web/projects/${project.id}/token`,
      hook: `#!/bin/sh
# .git/hooks/pre-commit — designate from the staged paths and check the staged lines locally
# (TALENTD_URL and TALENTD_KEY in the environment; nothing of the diff is sent)
exec talentd check --staged
`,
    },
  };
}
