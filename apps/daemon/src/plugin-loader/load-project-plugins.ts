import {
  DowncityError,
  errorFields,
  type Logger,
  type Plugin,
  type PluginEntry,
  writeConfigJsonSchema,
} from "@downcity/core";
import { hostSections } from "../config/host-sections.js";
import { validateProjectConfig } from "../config/validate-project-config.js";
import { collectPlugins } from "./collect-plugins.js";

/**
 * Checks the project as `doctor` and `restart` do (config/validate-project-config.ts): a problem that
 * stops the daemon (a section nobody claims while every plug-in loaded, a bad host section) is
 * thrown; the others (a plug-in or channel that fails alone, the model) are logged and the daemon
 * starts degraded. Then loads the plug-ins and writes the project's JSON Schema of downcity.json.
 */
export async function loadProjectPlugins(options: {
  rootDir: string;
  env: Record<string, string | undefined>;
  specifiers: readonly string[];
  builtins: readonly Plugin[];
  logger: Logger;
}): Promise<PluginEntry[]> {
  const { rootDir, logger } = options;
  const report = await validateProjectConfig({ rootDir, env: options.env, plugins: options.builtins });
  const refusals = report.problems.filter((problem) => problem.kind === "config");
  const [first] = refusals;
  if (first)
    throw new DowncityError("CONFIG_INVALID", refusals.map((problem) => problem.message).join("; "), {
      field: first.field,
    });
  for (const problem of report.problems)
    logger.warn({ kind: problem.kind, field: problem.field }, problem.message);
  const entries = await collectPlugins({
    rootDir,
    builtins: options.builtins,
    specifiers: options.specifiers,
  });
  const loaded = entries.flatMap((entry) => (entry.plugin ? [entry.plugin] : []));
  await writeConfigJsonSchema(rootDir, [...hostSections, ...loaded]).catch((error: unknown) =>
    logger.warn(errorFields(error), "could not write the downcity.json JSON Schema"),
  );
  return entries;
}
