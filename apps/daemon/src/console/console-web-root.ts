import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The folder of the prebuilt page: `$DOWNCITY_CONSOLE_WEB_ROOT`, else `dist/` of `@downcity/console-web`. */
export function consoleWebRoot(env: Record<string, string | undefined> = process.env): string {
  if (env.DOWNCITY_CONSOLE_WEB_ROOT) return env.DOWNCITY_CONSOLE_WEB_ROOT;
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@downcity/console-web/package.json")), "dist");
}
