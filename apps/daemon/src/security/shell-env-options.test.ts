import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@downcity/core";
import { createShellEngine } from "@downcity/shell";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { describeShellEnv, shellEnvOptions } from "./shell-env-options.js";

let rootDir: string;
beforeEach(() => {
  rootDir = mkdtempSync(join(tmpdir(), "dc-shell-env-"));
});
afterEach(() => rmSync(rootDir, { recursive: true, force: true }));

// The daemon's own secrets under names no pattern catches: only their values give them away.
const processEnv = {
  PATH: process.env.PATH,
  HOME: "/home/agent",
  LANG: "C.UTF-8",
  PROVIDER_CRED_X: "sk-provider-value",
  CHAT_BOT_X: "123456:channel-token-value",
  STORE_LOCATION: "postgres://agent:pw@db/downcity",
  PROJECT_NAME: "demo",
};

async function loadProject(shell: unknown = {}) {
  writeFileSync(join(rootDir, ".env"), "DOTENV_ONLY=dotenv-value\nSHARED_WITH_TEAM=team-value\n");
  writeFileSync(
    join(rootDir, "downcity.json"),
    JSON.stringify({
      llm: { provider: "openai", model: "gpt-4.1-mini", apiKey: "${PROVIDER_CRED_X}" },
      channels: { tg: { adapter: "@downcity/adapters-telegram", botToken: "${CHAT_BOT_X}" } },
      store: { adapter: "@downcity/store-postgres", url: "${STORE_LOCATION}" },
      shell,
    }),
  );
  const { config, env } = await loadConfig(rootDir, { env: processEnv });
  return { rootDir, config, configEnv: env };
}

async function shellEnv(shell?: unknown): Promise<string> {
  const engine = createShellEngine({ rootDir, ...(await shellEnvOptions(await loadProject(shell))) });
  try {
    return (await engine.exec({ command: "env" })).output;
  } finally {
    await engine.closeAll({ grace_ms: 200 });
  }
}

const secretValues = [
  "sk-provider-value",
  "channel-token-value",
  "postgres://agent:pw@db/downcity",
  "dotenv-value",
  "team-value",
];

describe("what a shell command receives", () => {
  test("`env` prints no provider key, channel token, store URL or .env value by default", async () => {
    const output = await shellEnv();
    for (const value of secretValues) expect(output).not.toContain(value);
    expect(output).not.toContain("PROJECT_NAME");
    expect(output).toContain("HOME=/home/agent\n");
    expect(output).toContain("LANG=C.UTF-8\n");
  });

  test("a glob passes plain variables only; a secret or .env value needs its exact name", async () => {
    const globbed = await shellEnv({ env: { pass: ["*"], set: { CI: "1" } } });
    for (const value of secretValues) expect(globbed).not.toContain(value);
    expect(globbed).toContain("PROJECT_NAME=demo\n");
    expect(globbed).toContain("CI=1\n");
    const named = await shellEnv({ env: { pass: ["SHARED_WITH_TEAM"] } });
    expect(named).toContain("SHARED_WITH_TEAM=team-value\n");
    expect(named).not.toContain("dotenv-value");
  });

  test("doctor's view names what passes and what is held back, never a value", async () => {
    const view = await describeShellEnv(
      await loadProject({ env: { pass: ["PROJECT_*"], set: { CI: "1" } } }),
    );
    expect(view.passed).toEqual(["HOME", "LANG", "PATH", "PROJECT_NAME"]);
    expect(view.set).toEqual(["CI"]);
    expect(view.withheld).toEqual([
      "CHAT_BOT_X",
      "DOTENV_ONLY",
      "PROVIDER_CRED_X",
      "SHARED_WITH_TEAM",
      "STORE_LOCATION",
    ]);
    expect(JSON.stringify(view)).not.toContain("value");
  });
});
