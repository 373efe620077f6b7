import type { DowncityConfig } from "@downcity/core";
import { journalSecrets } from "./journal-secrets.js";

/**
 * Masks the project's secrets in a command line or its output as `***`: the configured keys and
 * tokens (`journalSecrets`) and the shared store's URL (it carries the database password). Values
 * shorter than 4 characters are left alone (they would mask ordinary text); longer ones go first,
 * so a secret that contains another is masked whole.
 */
export function createCommandMask(
  config: DowncityConfig,
  configEnv: Record<string, string | undefined>,
): (text: string) => string {
  const secrets = [...journalSecrets(config, configEnv), ...(config.store?.url ? [config.store.url] : [])]
    .filter((secret) => secret.length >= 4)
    .sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((result, secret) => result.split(secret).join("***"), text);
}
