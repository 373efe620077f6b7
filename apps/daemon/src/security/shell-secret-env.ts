import { journalSecrets } from "../runtime/journal-secrets.js";

/** Names that carry credentials by convention, whatever their value. */
const secretName = /key|token|secret|password|passwd|credential|_dsn$|database_url/i;

/**
 * The variables a shell may receive only when `shell.env.pass` names them exactly: every name the
 * project's `.env` defines, names that read like credentials, the names the operator listed in
 * `shell.secretEnv`, and any variable whose value is one of the daemon's own secrets (a provider
 * key, a channel token, the store URL) whatever it is called.
 */
export function shellSecretEnv(options: {
  config: { store?: { url?: string | undefined } | undefined };
  /** The environment over `.env`, which children draw from. */
  configEnv: Record<string, string | undefined>;
  dotenvNames: Iterable<string>;
  listed?: readonly string[] | undefined;
}): string[] {
  const names = new Set<string>([...options.dotenvNames, ...(options.listed ?? [])]);
  const values = new Set(journalSecrets(options.config, options.configEnv));
  const storeUrl = options.config.store?.url;
  if (storeUrl) values.add(storeUrl);
  for (const [name, value] of Object.entries(options.configEnv)) {
    if (value === undefined) continue;
    if (secretName.test(name) || values.has(value)) names.add(name);
  }
  return [...names].sort();
}
