/**
 * How a sentence that tells a key-API caller what to call next names the call, in both channels
 * (docs/api.md "Wording follows the channel"): a step is "call operation X with these arguments",
 * rendered from the route's descriptor as a route over the key API
 * (`GET /api/validation/playbook?resolutionId=…`) and as a tool over MCP (`svc_validate with
 * resolutionId=…`). A step whose scope the caller's credentials lack is not offered as a call: the
 * sentence says what to ask for instead. The sentences themselves are the domain's
 * (resolution/wording.ts).
 */
import { type Channel, channelOf, type KeyRoute } from "./keyRoute";

/** Who is being told: the channel of the request and the scopes of its credentials. */
export interface Voice {
  channel: Channel;
  scopes: readonly string[];
}

/** The voice of a request made with credentials carrying `scopes`. */
export function voiceOf(request: Request, scopes: readonly string[]): Voice {
  return { channel: channelOf(request), scopes };
}

/** Arguments of a step, each as the text to show (a value, or a placeholder such as `<id>`). */
type Args = Record<string, string | undefined>;

/** The MCP tool that reaches a route, if any. */
function toolNameOf(route: KeyRoute): string | undefined {
  return route.tool?.name ?? route.reachedBy;
}

/** One call as the channel spells it: `svc_validate with resolutionId=res_1`, or `GET /api/validation/playbook?resolutionId=res_1`. */
function spell(route: KeyRoute, args: Args, channel: Channel): string {
  const given = Object.entries(args).filter((e): e is [string, string] => e[1] !== undefined);
  if (channel === "mcp") {
    const name = toolNameOf(route)!;
    return given.length ? `${name} with ${given.map(([k, v]) => `${k}=${v}`).join(", ")}` : name;
  }
  const path = route.path.replace(/:id\b/, "current");
  if (!given.length) return `${route.method} ${path}`;
  if (route.method === "GET") return `${route.method} ${path}?${given.map(([k, v]) => `${k}=${v}`).join("&")}`;
  return `${route.method} ${path} {${given.map(([k, v]) => `${k}: ${v}`).join(", ")}}`;
}

/** A call to offer the voice, or null when its credentials lack the route's scope or its channel does not offer the route. */
export function call(voice: Voice, route: KeyRoute, args: Args = {}): string | null {
  const offered = voice.scopes.includes(route.scope) && (voice.channel === "api" || toolNameOf(route) !== undefined);
  return offered ? spell(route, args, voice.channel) : null;
}

/** What to ask for when a step's scope is missing. */
export const lacking = (route: KeyRoute) => `credentials with the ${route.scope} scope`;
