/**
 * Lazy talents: what keeps a large TALENTS_DIR catalog small in memory. After start, a talent
 * keeps its light fields (id, title, summary, triggers, graph, digests, token count). Its heavy
 * fields (body, rules, tests, file contents, pointers) are rebuilt on access from the
 * content-addressed blob table, where start-up stored its bytes, and kept in a small LRU. The
 * bytes are the ones validated at start, so a file edited on disk afterwards changes nothing
 * until the next start (docs/performance.md).
 */
import { declareKept } from "../lib/kept";
import { KeptMap } from "../lib/keptMap";
import { lightKeys, type HeavyField, type TalentFields } from "./fields";
import type { Talent } from "./format";
import { validateTalent } from "./validate";

/** Loads file contents by digest, synchronously (the prepared read connection). */
export type BlobLoader = (digests: string[]) => Map<string, string>;

declareKept("Rebuilt heavy fields of a lazy talent", { clock: "immutable", limit: "256 per catalog, LRU" });

/** A bounded most-recently-used cache of rebuilt talents, shared by one catalog's lazy talents. */
export class TalentCache {
  readonly #map: KeptMap<string, Talent>;
  constructor(readonly max = 256) {
    this.#map = new KeptMap(max, { order: "used" });
  }

  get(key: string): Talent | undefined {
    return this.#map.get(key);
  }

  set(key: string, t: Talent): void {
    this.#map.set(key, t);
  }
}

/** A fresh copy of a string, so it does not keep the parse-time source text alive. */
const own = (s: string): string => Buffer.from(s, "utf8").toString("utf8");

/**
 * The light fields of a talent: the declared ones but the heavy (fields.ts), and what the
 * validator derives but the body, files, pointers and compact form.
 */
type Light = Omit<Talent, HeavyField | "body" | "files" | "pointers" | "compact">;

/** What the validator derives that a lazy talent keeps (the rest is rebuilt with the heavy fields). */
const DERIVED_LIGHT = ["id", "kind", "format", "ruleCount", "uri", "mainFile", "compactDigest", "tokens", "digest"] as const;
// a light field neither declared (fields.ts) nor listed above fails to compile here
const everyLightField: Exclude<keyof Light, keyof TalentFields | (typeof DERIVED_LIGHT)[number]> extends never ? true : false = true;

/**
 * A fresh copy of the light fields, so they do not keep the parse-time source text alive: JSON
 * text parsed again makes new strings (lists and mappings copied with them); an absent optional
 * field stays absent.
 */
function lightCopy(full: Talent): Light {
  const picked: Record<string, unknown> = {};
  for (const key of [...lightKeys(), ...DERIVED_LIGHT]) picked[key] = Reflect.get(full, key);
  const copy: Light = JSON.parse(JSON.stringify(picked));
  return copy;
}

/** The lazy twin of a validated public talent. */
export function lazyTalent(full: Talent, load: BlobLoader, cache: TalentCache): Talent {
  const manifest = [...full.files.values()].map((f) => ({ path: own(f.path), digest: f.digest }));
  const key = `${full.id}@${full.digest}`;
  const folder = own(full.id);
  const rebuild = (): Talent => {
    const hit = cache.get(key);
    if (hit) return hit;
    const contents = load(manifest.map((m) => m.digest));
    const files: Record<string, string> = {};
    for (const m of manifest) {
      const c = contents.get(m.digest);
      if (c === undefined) throw new Error(`talent ${folder}: blob ${m.digest} (${m.path}) is missing`);
      files[m.path] = c;
    }
    const r = validateTalent({ folder, files, label: (p) => `${folder}/${p}` });
    if (!r.talent) throw new Error(`talent ${folder}: stored bytes no longer validate (${r.findings.length} findings)`);
    // a talent in the LRU keeps its compact form once rendered (at most 256 of them): prepare-task
    // reads it for every designated talent on every call
    let compact: string | undefined;
    const render = Object.getOwnPropertyDescriptor(r.talent, "compact")!.get!.bind(r.talent);
    Object.defineProperty(r.talent, "compact", { get: () => (compact ??= render()), enumerable: true });
    cache.set(key, r.talent);
    return r.talent;
  };
  const light = lightCopy(full);
  return {
    ...light,
    get body() {
      return rebuild().body;
    },
    get rules() {
      return rebuild().rules;
    },
    get tests() {
      return rebuild().tests;
    },
    get files() {
      return rebuild().files;
    },
    get pointers() {
      return rebuild().pointers;
    },
    get compact() {
      return rebuild().compact;
    },
  };
}
