/**
 * A command that cannot go on for a reason the person running it can fix (a weak password, a
 * port in use): main prints `talentd: <message>` and exits 2. Its own module, so main can
 * recognise it without loading the commands.
 */
export class CliError extends Error {
  override name = "CliError";
}
