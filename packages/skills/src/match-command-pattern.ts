/**
 * Whether a simple command (its words) matches one `Bash(…)` pattern: `*` matches any text,
 * a trailing ` *` or `:*` also matches the bare program (`git *` allows `git`), and the whole
 * command must match, so `git *` never allows `gitk` nor a second command.
 */
export function matchCommandPattern(pattern: string, words: readonly string[]): boolean {
  const command = words.join(" ");
  let body = pattern.trim();
  let optionalRest = false;
  if (body.endsWith(":*")) {
    body = body.slice(0, -2);
    optionalRest = true;
  } else if (body.endsWith(" *")) {
    body = body.slice(0, -2);
    optionalRest = true;
  }
  const source = body
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  const expression = new RegExp(`^${source}${optionalRest ? "(?: .*)?" : ""}$`, "s");
  return expression.test(command);
}
