/**
 * Built-in specializations (docs/api.md "Specializations"): named bundles of talents for a
 * kind of codebase, shipped as files beside the talents — `talents/_specializations/<id>.yaml`
 * (and the same folder in TALENTS_DIR, a file with the same id replacing the shipped one):
 *
 *     name: TypeScript service
 *     description: A Node.js HTTP service in strict TypeScript …
 *     talents: [typescript-strict, node-http-services, …]
 *
 * Checked when the catalog is built and by `talents lint`: the id (file name) is a talent-style
 * id, every talent exists, and the requires-closure of the talents holds no conflicting pair
 * (so applying one can never install both sides of a conflict by itself).
 */
import { ID_PATTERN, type Finding } from "./format";
import { conflictPairs, requiresClosure, type Lookup } from "./graph";
import { parseFrontMatterYaml } from "./validate";

export const SPECIALIZATIONS_FOLDER = "_specializations";
export const SPECIALIZATION_LIMITS = { name: 100, description: 500, talents: 100 } as const;

export interface BuiltInSpecialization {
  id: string;
  name: string;
  description: string;
  talents: string[];
  builtIn: true;
}

/** One specialization file: its id (the file name without .yaml), its text, and how to name it in a finding. */
export interface SpecializationSource {
  id: string;
  content: string;
  label: string;
}

/** The specialization files of a flat `<folder>/<path>` map (the embedded catalog). */
export function specializationSourcesFromFlat(flat: Record<string, string>, labelRoot = "talents"): SpecializationSource[] {
  const prefix = `${SPECIALIZATIONS_FOLDER}/`;
  return Object.entries(flat)
    .filter(([k]) => k.startsWith(prefix) && k.endsWith(".yaml") && !k.slice(prefix.length).includes("/"))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, content]) => ({ id: k.slice(prefix.length, -".yaml".length), content, label: `${labelRoot}/${k}` }));
}

/**
 * Validates specialization sources against a catalog (later sources replace earlier ones with
 * the same id). Returns the valid ones, sorted by id, and a finding per problem.
 */
export function validateSpecializations(
  sources: readonly SpecializationSource[],
  catalog: { get: Lookup },
): { list: BuiltInSpecialization[]; findings: Finding[] } {
  const byId = new Map<string, SpecializationSource>();
  for (const s of sources) byId.set(s.id, s);
  const list: BuiltInSpecialization[] = [];
  const findings: Finding[] = [];
  for (const src of byId.values()) {
    const problems: Finding[] = [];
    const add = (field: string, problem: string) => problems.push({ file: src.label, field, problem });
    if (!ID_PATTERN.test(src.id) || src.id.length > 64)
      add("id", `file name "${src.id}" must be lower-case words joined by - (1–64 characters)`);
    const parsed = parseFrontMatterYaml(src.content);
    if ("error" in parsed) {
      add("yaml", parsed.error);
      findings.push(...problems);
      continue;
    }
    const v = parsed.value as Record<string, unknown> | null;
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      add("yaml", "must be a mapping with name, description and talents");
      findings.push(...problems);
      continue;
    }
    for (const k of Object.keys(v))
      if (!["name", "description", "talents"].includes(k)) add(k, "unknown field (name, description, talents)");
    const name = typeof v.name === "string" ? v.name.trim() : "";
    if (!name || name.length > SPECIALIZATION_LIMITS.name) add("name", `must be text of 1 to ${SPECIALIZATION_LIMITS.name} characters`);
    const description = typeof v.description === "string" ? v.description.trim() : "";
    if (!description || description.length > SPECIALIZATION_LIMITS.description)
      add("description", `must be text of 1 to ${SPECIALIZATION_LIMITS.description} characters`);
    const talents = Array.isArray(v.talents) && v.talents.every((x) => typeof x === "string") ? [...new Set(v.talents as string[])] : null;
    if (!talents || talents.length === 0 || talents.length > SPECIALIZATION_LIMITS.talents) {
      add("talents", `must be a list of 1 to ${SPECIALIZATION_LIMITS.talents} talent ids`);
    } else {
      for (const id of talents) if (!catalog.get(id)) add("talents", `"${id}" does not exist in the catalog`);
      const closure = requiresClosure(talents, (id) => catalog.get(id));
      for (const p of conflictPairs(closure.ids, (id) => catalog.get(id)))
        add("talents", `its requires-closure holds conflicting talents "${p.a}" and "${p.b}"`);
    }
    if (problems.length > 0) findings.push(...problems);
    else list.push({ id: src.id, name, description, talents: talents!, builtIn: true });
  }
  list.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { list, findings };
}
