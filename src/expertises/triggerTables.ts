/**
 * The tables the trigger proposal (triggers.ts) reads: globs by language, stop words.
 */
/** Front-matter language name → the keyword it suggests (the language itself) and its globs. */
export const LANGUAGE_GLOBS: Record<string, string[]> = {
  typescript: ["**/*.ts", "**/*.tsx"],
  javascript: ["**/*.js", "**/*.jsx"],
  python: ["**/*.py"],
  go: ["**/*.go"],
  rust: ["**/*.rs"],
  java: ["**/*.java"],
  kotlin: ["**/*.kt"],
  ruby: ["**/*.rb"],
  php: ["**/*.php"],
  csharp: ["**/*.cs"],
  sql: ["**/*.sql"],
  shell: ["**/*.sh"],
  bash: ["**/*.sh"],
  yaml: ["**/*.yaml", "**/*.yml"],
  css: ["**/*.css"],
  html: ["**/*.html"],
  terraform: ["**/*.tf"],
  hcl: ["**/*.tf"],
  swift: ["**/*.swift"],
  scala: ["**/*.scala"],
  dockerfile: ["**/Dockerfile"],
};

export const STOPWORDS = new Set(
  (
    "about above across after again against all also always among and another any are around avoid because been before " +
    "being below between both but by can cannot could does doing done down during each either else ensure every " +
    "except first for from further given have having here how however instead into its itself just keep like " +
    "make makes making many may might more most much must need needs never none nor not only other others our " +
    "out over own per prefer rather same should since so some such than that the their them then there these " +
    "they this those through thus too under unless until upon use used uses using very via was were what when " +
    "where whether which while who whose why will with within without would your yours " +
    "always never every each thing things something anything nothing everything first second third one two three " +
    "new add adds added set sets get gets put run runs call calls give take takes write writes read reads check " +
    "checks look looks keep kept show shows state states work works case cases way ways time times part parts " +
    "good bad well less least true false null none yes e.g i.e etc existing explicitly found code data " +
    "once twice often ever still already again what this that"
  ).split(/\s+/),
);
