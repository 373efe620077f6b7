// The example at the top of a package README, made runnable in a consumer project: the identifiers it
// leaves to the reader (`model`, `registry`, `token`, ...) are declared before it; only the LLM is scripted.
// What it talks to outside its process (a PostgreSQL server) is real, started by the harness.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The first ```ts (or ```js) block of a README, before any `##` section. */
export function extractReadmeExample(readme) {
  const head = readme.split(/^## /m)[0];
  const match = /```(?:ts|typescript|js|javascript)\n([\s\S]*?)```/.exec(head);
  if (!match) throw new Error("the README has no ```ts example before its first ## section");
  return match[1];
}

// The model talks HTTP to the scripted OpenAI-compatible server pack-check runs (SCRIPTED_MODEL_URL).
const scriptedModel = [
  'import { createOpenAICompatible } from "@ai-sdk/openai-compatible";',
  'const model = createOpenAICompatible({ name: "scripted", baseURL: process.env.SCRIPTED_MODEL_URL ?? "" }).chatModel("scripted");',
];
const modelPackage = "@ai-sdk/openai-compatible@^2";

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * A throwaway PostgreSQL server from Debian's binaries (`apt-get install postgresql`): a temporary
 * data folder, trust auth on 127.0.0.1, fsync off, and an empty database `downcity` owned by user
 * `downcity`. As root it runs as the `postgres` user (the server refuses root). Returns the
 * database's URL and `stop()`, which shuts the server down and removes the folder.
 */
export async function startThrowawayPostgres() {
  const base = "/usr/lib/postgresql";
  const version = (existsSync(base) ? readdirSync(base) : [])
    .filter((entry) => existsSync(join(base, entry, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a))[0];
  if (!version)
    throw new Error("PostgreSQL binaries not found under /usr/lib/postgresql: apt-get install postgresql");
  const bin = join(base, version, "bin");
  const dir = mkdtempSync(join(tmpdir(), "downcity-example-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  // As the server's own user: initdb and pg_ctl; clients (createdb) connect over TCP as `downcity`.
  const server = (program, programArgs) =>
    execFileSync(
      asRoot ? "runuser" : join(bin, program),
      asRoot ? ["-u", "postgres", "--", join(bin, program), ...programArgs] : programArgs,
      { stdio: "pipe", timeout: 60_000 },
    );
  const failed = (what, error) => {
    let log = "";
    try {
      log = readFileSync(join(dir, "server.log"), "utf8");
    } catch {
      // No log yet.
    }
    return new Error(`PostgreSQL ${what} failed: ${error.stderr ?? error.message}\n${log}`.trim());
  };
  const port = await freePort();
  const stop = async () => {
    try {
      if (existsSync(join(data, "postmaster.pid")))
        server("pg_ctl", ["stop", "-D", data, "-m", "fast", "-w", "-t", "30"]);
    } catch {
      // Not stopped within 30 s: end the postmaster outright.
      try {
        const pid = Number.parseInt(
          readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0] ?? "",
          10,
        );
        if (pid > 0) process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    server("initdb", ["-D", data, "-A", "trust", "-U", "downcity", "-E", "UTF8", "--no-sync"]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw failed("initdb", error);
  }
  try {
    const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`;
    server("pg_ctl", ["start", "-D", data, "-l", join(dir, "server.log"), "-o", settings, "-w", "-t", "30"]);
    execFileSync(
      join(bin, "createdb"),
      ["-h", "127.0.0.1", "-p", String(port), "-U", "downcity", "downcity"],
      {
        stdio: "pipe",
        timeout: 30_000,
      },
    );
  } catch (error) {
    const cause = failed("start", error);
    await stop();
    throw cause;
  }
  return { url: `postgres://downcity@127.0.0.1:${port}/downcity`, stop };
}

/**
 * Per package: extra npm packages the example imports, declarations it expects, code to run after it
 * (closing what it opened), files it imports that stand in for a real provider, its environment, and
 * `setup`: what it needs running outside its process, started before the example runs and stopped
 * after (`{ env, stop }`).
 */
export const exampleHarness = {
  "@downcity/core": {
    install: [modelPackage],
    files: {
      // The README uses OpenAI; the consumer project gets a stand-in module answering with the scripted model.
      "scripted-openai.ts": [...scriptedModel, "export const openai = (_modelId: string) => model;"].join(
        "\n",
      ),
    },
    rewrite: { "@ai-sdk/openai": "./scripted-openai.js" },
  },
  "@downcity/shell": {
    install: ["ai@^6"],
    prelude: [
      'const token = "readme-example-token";',
      "const report = async (...fields: unknown[]) => console.log('shell exit', ...fields);",
    ],
  },
  "@downcity/mcp": {
    install: [modelPackage],
    prelude: [
      ...scriptedModel,
      'import { createServiceRegistry as createRegistryForExample } from "@downcity/core";',
      "const registry = createRegistryForExample();",
    ],
    after: ["await mcp.close();"],
    // The example's `npx -y` server must fail fast instead of downloading; connect() tolerates it.
    env: { npm_config_offline: "true" },
  },
  "@downcity/skills": {
    install: [modelPackage],
    prelude: [
      ...scriptedModel,
      'import { mkdirSync as mkdirForExample, writeFileSync as writeForExample } from "node:fs";',
      "const rootDir = process.cwd();",
      'mkdirForExample(".agents/skills/pdf", { recursive: true });',
      'writeForExample(".agents/skills/pdf/SKILL.md", "---\\nname: pdf\\ndescription: Fill in PDF forms.\\n---\\nUse the form fields.\\n");',
    ],
  },
  "@downcity/memory": {
    install: [modelPackage],
    prelude: [...scriptedModel, "const rootDir = process.cwd();"],
  },
  "@downcity/adapters-dingtalk": {
    env: { DINGTALK_CLIENT_SECRET: "pack-check-client-secret-0123" },
  },
  "@downcity/adapters-feishu": {
    // The example reads the secret from the environment, as a project does from .env.
    env: { LARK_APP_SECRET: "pack-check-app-secret" },
  },
  "@downcity/adapters-qq": {
    env: { QQ_CLIENT_SECRET: "pack-check-client-secret" },
  },
  "@downcity/adapters-wecom": {
    env: { WECOM_BOT_SECRET: "pack-check-bot-secret-0123456789" },
  },
  "@downcity/adapters-weixin": {
    env: { WEIXIN_BOT_TOKEN: "pack-check-bot-token-0123456789" },
  },
  "@downcity/store-postgres": {
    // A real server: the example connects to DATABASE_URL, migrates, accepts, claims and completes.
    async setup() {
      const postgres = await startThrowawayPostgres();
      return { env: { DATABASE_URL: postgres.url }, stop: postgres.stop };
    },
  },
  "@downcity/tasks": {
    install: [modelPackage],
    prelude: [
      ...scriptedModel,
      'import { createServiceRegistry as createRegistryForExample, silentLogger as logger } from "@downcity/core";',
      "const registry = createRegistryForExample();",
    ],
    after: ["await tasks.close();"],
  },
};

/** Marker the wrapped example prints when it ran to its end. */
export const exampleDoneMarker = "README example ran to its end";

/** The consumer file: harness declarations, the README example (imports rewritten), then the closing code. */
export function wrapReadmeExample(name, example) {
  const harness = exampleHarness[name] ?? {};
  let body = example;
  for (const [from, to] of Object.entries(harness.rewrite ?? {}))
    body = body.replaceAll(`"${from}"`, `"${to}"`);
  return [
    ...(harness.prelude ?? []),
    "// --- README example ---",
    body.trimEnd(),
    "// --- end of README example ---",
    ...(harness.after ?? []),
    `console.log(${JSON.stringify(exampleDoneMarker)});`,
    // Examples may leave engines and timers open, as a long-running host would.
    "process.exit(0);",
    "",
  ].join("\n");
}
