const mask = "***";

// `TOKEN=abc`, `export API_KEY=abc`, `--password=abc`, `--token abc`: the value goes.
const secretAssignment =
  /\b([A-Za-z_][A-Za-z0-9_]*(?:key|token|secret|passw(?:or)?d|pwd|auth|credential)[A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)/gi;
const secretFlag =
  /(--?(?:api[-_]?key|token|secret|passw(?:or)?d|pwd|auth|credentials?))(=|\s+)("[^"]*"|'[^']*'|\S+)/gi;
const authorization = /\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
const urlCredentials = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi;
// A long run of letters and digits mixing both (sk-…, ghp_…, a hex key): likely a token.
const tokenLike = /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{24,}\b/g;

/**
 * A tool call's input made fit for a chat status line: known secrets, `*_KEY=…` assignments,
 * `--token …` flags, authorization values, URL credentials and token-like strings masked, then cut
 * to `maxChars`. The status message is seen by everyone in the chat, so it errs on masking.
 */
export function maskStepText(text: string, secrets: readonly string[] = [], maxChars = 60): string {
  let result = text;
  for (const secret of [...secrets].filter((value) => value.length >= 4).sort((a, b) => b.length - a.length))
    result = result.split(secret).join(mask);
  result = result
    .replace(secretAssignment, (_all, name: string) => `${name}=${mask}`)
    .replace(secretFlag, (_all, flag: string, separator: string) => `${flag}${separator}${mask}`)
    .replace(authorization, (_all, scheme: string) => `${scheme} ${mask}`)
    .replace(urlCredentials, (_all, scheme: string) => `${scheme}${mask}@`)
    .replace(tokenLike, mask)
    .replace(/\s+/g, " ")
    .trim();
  return result.length > maxChars ? `${result.slice(0, maxChars - 1)}…` : result;
}
