const secretName = /key|token|secret|password|credential/i;

/**
 * The values the run journal must never write: configured keys and tokens. Those are the
 * environment variables named like secrets (the config refers to them as `${...}`) and every
 * string under a key named like one in downcity.json (`llm.apiKey`, a channel's `token`).
 */
export function journalSecrets(config: unknown, env: Record<string, string | undefined>): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) if (value && secretName.test(name)) found.add(value);
  const visit = (value: unknown, key: string, depth: number) => {
    if (typeof value === "string") {
      if (secretName.test(key) && !value.includes("${")) found.add(value);
      return;
    }
    if (typeof value !== "object" || value === null || depth > 16) return;
    for (const [child, item] of Object.entries(value)) visit(item, child, depth + 1);
  };
  visit(config, "", 0);
  return [...found];
}
