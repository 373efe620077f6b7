import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createShellEngine, type ShellEngine } from "@downcity/shell";
import { until } from "@downcity/testkit";
import { afterEach, expect, test } from "vitest";
import { createShellCredentials, type ShellCredentials } from "./create-shell-credentials.js";

let engine: ShellEngine | undefined;
let rootDir: string | undefined;
afterEach(async () => {
  await engine?.closeAll({ grace_ms: 200 });
  if (rootDir) rmSync(rootDir, { recursive: true, force: true });
});

function setup(sweepAt: number): ShellCredentials {
  rootDir = mkdtempSync(join(tmpdir(), "dc-credentials-"));
  const credentials: ShellCredentials = createShellCredentials({
    status: (shellId) => (engine as ShellEngine).status({ shell_id: shellId }),
    defaultContextId: "cli:main",
    sweepAt,
  });
  engine = createShellEngine({ rootDir, server: { host: "127.0.0.1", port: 1, token: credentials.issue } });
  return credentials;
}

test("tokens of ended sessions are swept once they pile up; a live session keeps its token", async () => {
  const credentials = setup(4);
  const live = await (engine as ShellEngine).start({
    command: 'printf "%s\\n" "$DC_CTX_TOKEN"; exec sleep 60',
  });
  for (let index = 0; index < 3; index += 1) await (engine as ShellEngine).exec({ command: "true" });
  expect(credentials.tokens.size()).toBe(4);
  // The fifth session finds four tokens and sweeps the three of ended commands.
  await (engine as ShellEngine).exec({ command: "true" }, { contextId: "cli:other" });
  await until(() => credentials.tokens.size() <= 2, "the sweep of the ended commands' tokens", 5000);
  const grants = credentials.tokens.entries().map(([, grant]) => grant);
  expect(grants.map((grant) => grant.shellId)).toContain(live.shell_id);
  expect(grants.find((grant) => grant.shellId === live.shell_id)?.contextId).toBe("cli:main");
  expect(credentials.tokens.size()).toBeLessThanOrEqual(2);
  expect(await credentials.scope.sessionLive(live.shell_id)).toBe(true);
});
