/**
 * The checks of the Agent Skills reference validator (`skills-ref validate`, agentskills/agentskills
 * skills-ref/src/skills_ref/validator.py and parser.py), rewritten for the tests: SKILL.md starts
 * with front matter that a strict YAML parser reads (strictyaml refuses flow collections,
 * anchors, aliases and tags) as a mapping of only the six specification fields; `name` 1–64
 * characters after NFKC, lower case, letters, digits and single inner hyphens, equal to the
 * folder's name; `description` 1–1024 characters; `compatibility` at most 500; `allowed-tools`
 * a string or a list of strings. Also the specification's "metadata: a map from string keys to
 * string values". The package itself is Python (and its npm twin is not a dependency here).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { isAlias, isCollection, isNode, parseDocument, visit } from "yaml";

const ALLOWED = ["name", "description", "license", "allowed-tools", "metadata", "compatibility"];

/** The problems the reference validator (plus the metadata rule) finds in one skill folder; [] when valid. */
export function agentSkillsProblems(folder: string): string[] {
  const path = join(folder, "SKILL.md");
  if (!existsSync(path)) return ["Missing required file: SKILL.md"];
  const content = readFileSync(path, "utf8");
  if (!content.startsWith("---")) return ["SKILL.md must start with YAML frontmatter (---)"];
  const parts = content.split("---");
  if (parts.length < 3) return ["SKILL.md frontmatter not properly closed with ---"];
  const doc = parseDocument(parts[1]!, { uniqueKeys: true });
  const errors = doc.errors.map((e) => `Invalid YAML in frontmatter: ${e.message}`);
  visit(doc, (_key, node) => {
    if (isAlias(node)) errors.push("strict YAML: an alias");
    if (isNode(node) && node.anchor) errors.push("strict YAML: an anchor");
    if (isNode(node) && node.tag) errors.push("strict YAML: a tag");
    if (isCollection(node) && node.flow) errors.push("strict YAML: a flow collection");
  });
  if (errors.length > 0) return errors;
  const fm = doc.toJS() as unknown;
  if (!fm || typeof fm !== "object" || Array.isArray(fm)) return ["SKILL.md frontmatter must be a YAML mapping"];
  const m = fm as Record<string, unknown>;
  const extra = Object.keys(m).filter((k) => !ALLOWED.includes(k));
  if (extra.length > 0) errors.push(`Unexpected fields in frontmatter: ${extra.sort().join(", ")}`);
  if (!("name" in m)) errors.push("Missing required field in frontmatter: name");
  else if (typeof m.name !== "string" || m.name.trim() === "") errors.push("Field 'name' must be a non-empty string");
  else {
    const name = m.name.trim().normalize("NFKC");
    if ([...name].length > 64) errors.push(`Skill name '${name}' exceeds 64 character limit`);
    if (name !== name.toLowerCase()) errors.push(`Skill name '${name}' must be lowercase`);
    if (name.startsWith("-") || name.endsWith("-")) errors.push("Skill name cannot start or end with a hyphen");
    if (name.includes("--")) errors.push("Skill name cannot contain consecutive hyphens");
    if (![...name].every((c) => c === "-" || /[\p{L}\p{N}]/u.test(c))) errors.push(`Skill name '${name}' contains invalid characters`);
    if (basename(folder).normalize("NFKC") !== name) errors.push(`Directory name '${basename(folder)}' must match skill name '${name}'`);
  }
  if (!("description" in m)) errors.push("Missing required field in frontmatter: description");
  else if (typeof m.description !== "string" || m.description.trim() === "") errors.push("Field 'description' must be a non-empty string");
  else if ([...m.description].length > 1024) errors.push(`Description exceeds 1024 character limit (${[...m.description].length} chars)`);
  if ("compatibility" in m && (typeof m.compatibility !== "string" || [...m.compatibility].length > 500))
    errors.push("Field 'compatibility' must be a string of at most 500 characters");
  const tools = m["allowed-tools"];
  if ("allowed-tools" in m && typeof tools !== "string" && !(Array.isArray(tools) && tools.every((t) => typeof t === "string")))
    errors.push("Field 'allowed-tools' must be either a string or a list of strings");
  if ("metadata" in m) {
    const md = m.metadata;
    if (!md || typeof md !== "object" || Array.isArray(md) || Object.values(md).some((v) => typeof v !== "string"))
      errors.push("Field 'metadata' must map string keys to string values");
  }
  return errors;
}
