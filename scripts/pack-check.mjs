// Proves every published package from its packed tarball, outside the workspace:
// - each library installed alone with npm into a fresh project; its dependency list printed and held
//   to a budget; the example at the top of its README typechecked (moduleResolution node16 and
//   bundler) and run there;
// - the `downcity` CLI installed globally into an empty prefix with a fresh HOME and no compiler on
//   PATH; its size printed and held to a budget; `init`, `start`, `chat send`, `doctor`, `stop` run
//   against a scripted OpenAI-compatible model.
// Usage (after `pnpm build`): node scripts/pack-check.mjs [--keep] [--only <name>,...]
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startLocalRegistry, tarballManifest } from "./local-registry.mjs";
import {
  exampleDoneMarker,
  exampleHarness,
  extractReadmeExample,
  wrapReadmeExample,
} from "./readme-example.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const keep = args.includes("--keep");
const only = args.includes("--only") ? args[args.indexOf("--only") + 1]?.split(",") : undefined;

/** Exactly the runtime dependencies each library may have; a new one is a decision, made here. */
const dependencyBudgets = {
  "@downcity/core": ["ai", "markdown-it", "zod"],
  "@downcity/shell": ["@lydell/node-pty", "zod"],
  "@downcity/mcp": ["@downcity/core", "@modelcontextprotocol/sdk", "ai", "zod"],
  "@downcity/skills": ["@downcity/core", "ai", "tree-sitter-bash", "web-tree-sitter", "yaml", "zod"],
  "@downcity/memory": ["@downcity/core", "ai", "zod"],
  "@downcity/tasks": ["@downcity/core", "ai", "cron-parser", "yaml", "zod"],
  "@downcity/adapters-telegram": ["@downcity/core", "grammy", "zod"],
  "@downcity/adapters-webhook": ["@downcity/core", "zod"],
  "@downcity/adapters-dingtalk": ["@downcity/core", "dingtalk-stream", "zod"],
  "@downcity/adapters-feishu": ["@downcity/core", "@larksuiteoapi/node-sdk", "zod"],
  "@downcity/adapters-qq": ["@downcity/core", "ws", "zod"],
  "@downcity/adapters-wecom": ["@downcity/core", "@wecom/aibot-node-sdk", "zod"],
  "@downcity/adapters-weixin": ["@downcity/core", "zod"],
  "@downcity/console-web": [],
  "@downcity/store-postgres": ["@downcity/core", "pg", "zod"],
};
const cliSizeBudgetMiB = 80;
const scriptedReply = "Hello from the scripted model.";

const failures = [];
const started = Date.now();
const log = (line) => process.stdout.write(`${line}\n`);

// Asynchronous on purpose: the local registry and the scripted model answer from this process.
function run(command, commandArgs, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 300_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else {
        const tail = output.trim().split("\n").slice(-40).join("\n");
        reject(new Error(`${command} ${commandArgs.join(" ")} failed (exit ${code ?? signal}):\n${tail}`));
      }
    });
  });
}

function directorySize(dir) {
  let bytes = 0;
  let packages = 0;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) walk(child);
      else {
        bytes += statSync(child).size;
        if (entry.name === "package.json" && /node_modules\/(@[^/]+\/)?[^/@]+$/.test(path)) packages += 1;
      }
    }
  };
  walk(dir);
  return { bytes, packages };
}

const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);

async function step(name, body) {
  const at = Date.now();
  try {
    await body();
    log(`ok    ${name} (${((Date.now() - at) / 1000).toFixed(1)} s)`);
    return true;
  } catch (error) {
    failures.push(name);
    log(`FAIL  ${name}\n${String(error instanceof Error ? error.message : error).replace(/^/gm, "      ")}`);
    return false;
  }
}

function publishedPackages() {
  const found = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(root, group))) {
      const dir = join(root, group, entry);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (manifest.private) continue;
      found.push({ dir, name: manifest.name, manifest });
    }
  }
  return found;
}

const work = mkdtempSync(join(tmpdir(), "downcity-pack-check-"));
const tarballDir = join(work, "tarballs");
mkdirSync(tarballDir);
const packages = publishedPackages();
const npmCache = (await run("npm", ["config", "get", "cache"])).trim();
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const typeRoots = join(root, "node_modules", "@types");

log(`pack-check in ${work}`);
const tarballs = new Map();
await step("pnpm -r pack", async () => {
  await run("npx", ["-y", "pnpm@10", "-r", "pack", "--pack-destination", tarballDir], { cwd: root });
  for (const file of readdirSync(tarballDir)) {
    tarballs.set(tarballManifest(join(tarballDir, file)).name, join(tarballDir, file));
  }
});
for (const { name } of packages) {
  await step(`${name}: packed with complete metadata`, async () => {
    const tarball = tarballs.get(name);
    if (!tarball) throw new Error("pnpm -r pack wrote no tarball for it");
    const manifest = tarballManifest(tarball);
    const leftover = Object.entries(manifest.dependencies ?? {}).filter(([, range]) =>
      String(range).startsWith("workspace:"),
    );
    if (leftover.length > 0)
      throw new Error(`workspace: ranges left in the tarball: ${leftover.map(([dep]) => dep).join(", ")}`);
    for (const field of ["license", "repository", "engines", "files", "exports"]) {
      if (field === "exports" && manifest.bin) continue;
      if (!manifest[field]) throw new Error(`package.json has no "${field}"`);
    }
    // A scoped package publishes as restricted (paid, private) unless told otherwise.
    if (manifest.name.startsWith("@") && manifest.publishConfig?.access !== "public") {
      throw new Error('package.json needs "publishConfig": { "access": "public" }');
    }
    const untyped = Object.entries(manifest.exports ?? {}).filter(
      ([, target]) => typeof target === "object" && target.import && !target.types,
    );
    if (untyped.length > 0)
      throw new Error(`exports without "types": ${untyped.map(([key]) => key).join(", ")}`);
  });
}

const registry = await startLocalRegistry([...tarballs.values()]);
const { startOpenAICompatibleServer } = await import("@downcity/core/scripted");
const model = await startOpenAICompatibleServer({ respond: () => scriptedReply });
// The download cache is shared (even with the fresh HOME) for speed: it holds tarballs, no settings.
const npmEnv = {
  ...process.env,
  npm_config_cache: npmCache,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
const scopeFlag = `--@downcity:registry=${registry.url}`;

function writeConsumerProject(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`,
  );
}

async function typecheck(dir, resolution) {
  const compilerOptions =
    resolution === "node16"
      ? { module: "node16", moduleResolution: "node16" }
      : { module: "esnext", moduleResolution: "bundler" };
  const config = {
    compilerOptions: {
      ...compilerOptions,
      target: "es2022",
      strict: true,
      noEmit: true,
      // As `tsc --init` does: the AI SDK's own declarations need @types/json-schema, which it does not depend on.
      skipLibCheck: true,
      types: ["node"],
      typeRoots: [typeRoots],
    },
    include: ["*.ts"],
  };
  writeFileSync(join(dir, `tsconfig.${resolution}.json`), `${JSON.stringify(config, null, 2)}\n`);
  await run(process.execPath, [tsc, "-p", `tsconfig.${resolution}.json`], { cwd: dir, timeoutMs: 120_000 });
}

async function transpile(dir) {
  const ts = (await import("typescript")).default;
  for (const file of readdirSync(dir).filter((entry) => entry.endsWith(".ts"))) {
    const source = readFileSync(join(dir, file), "utf8");
    const output = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(dir, file.replace(/\.ts$/, ".js")), output.outputText);
  }
}

for (const { dir: packageDir, name, manifest } of packages) {
  if (manifest.bin || (only && !only.includes(name))) continue;
  const tarball = tarballs.get(name);
  if (!tarball) continue;
  const project = join(work, "consumers", name.replace(/^@/, "").replace("/", "-"));
  const harness = exampleHarness[name] ?? {};
  await step(`${name}: install its tarball alone`, async () => {
    writeConsumerProject(project);
    await run("npm", ["install", tarball, scopeFlag], { cwd: project, env: npmEnv });
  });
  await step(`${name}: dependencies within budget`, () => {
    const installed = JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8"));
    const deps = Object.keys(installed.dependencies ?? {}).sort();
    const { bytes, packages: count } = directorySize(join(project, "node_modules"));
    log(`      dependencies: ${deps.join(", ") || "(none)"}; installed ${mib(bytes)} MiB, ${count} packages`);
    const budget = dependencyBudgets[name];
    if (!budget) throw new Error(`no dependency budget for ${name}: add one to scripts/pack-check.mjs`);
    const over = deps.filter((dep) => !budget.includes(dep));
    if (over.length > 0) throw new Error(`outside the budget (${budget.join(", ")}): ${over.join(", ")}`);
  });
  // Packages of files only (the console's web assets) have no code to import: installing them is the proof.
  if (!manifest.exports?.["."]) continue;
  if (harness.install) {
    // What the example imports beside the package (a provider, an optional peer), added after measuring.
    await step(`${name}: install what the example imports (${harness.install.join(", ")})`, () =>
      run("npm", ["install", ...harness.install, scopeFlag], { cwd: project, env: npmEnv }),
    );
  }
  let wrapped = "";
  await step(`${name}: README example extracted`, () => {
    wrapped = wrapReadmeExample(
      name,
      extractReadmeExample(readFileSync(join(packageDir, "README.md"), "utf8")),
    );
    writeFileSync(join(project, "example.ts"), wrapped);
    for (const [file, text] of Object.entries(harness.files ?? {}))
      writeFileSync(join(project, file), `${text}\n`);
  });
  if (!wrapped) continue;
  for (const resolution of ["node16", "bundler"]) {
    await step(`${name}: tsc over the example, moduleResolution ${resolution}`, () =>
      typecheck(project, resolution),
    );
  }
  await transpile(project);
  await step(`${name}: README example runs`, async () => {
    // What the example talks to outside its process (a database) runs only while it does.
    const service = harness.setup ? await harness.setup() : undefined;
    try {
      const output = await run(process.execPath, ["example.js"], {
        cwd: project,
        env: {
          ...process.env,
          SCRIPTED_MODEL_URL: model.url,
          ...(harness.env ?? {}),
          ...(service?.env ?? {}),
        },
        timeoutMs: 120_000,
      });
      if (!output.includes(exampleDoneMarker))
        throw new Error(`the example did not reach its end:\n${output}`);
    } finally {
      await service?.stop();
    }
  });
}

const cli = packages.find((entry) => entry.manifest.bin);
if (cli && (!only || only.includes(cli.name))) {
  const home = join(work, "home");
  const prefix = join(work, "prefix");
  const shims = join(work, "no-compiler");
  for (const dir of [home, prefix, shims]) mkdirSync(dir, { recursive: true });
  // Anything that would compile a native addon fails loudly: the install must not need it.
  for (const tool of ["cc", "gcc", "c++", "g++", "clang", "make", "python", "python3", "node-gyp"]) {
    writeFileSync(
      join(shims, tool),
      `#!/bin/sh\necho "${tool} is not available: downcity must install without a compiler" >&2\nexit 127\n`,
    );
    chmodSync(join(shims, tool), 0o755);
  }
  const bin = join(prefix, "bin");
  const cliEnv = {
    ...npmEnv,
    HOME: home,
    npm_config_prefix: prefix,
    npm_config_userconfig: join(home, ".npmrc"),
    npm_config_nodedir: join(work, "no-node-headers"),
    PATH: [shims, bin, process.env.PATH].join(":"),
  };
  // Deterministic: the demo and init must not pick up a real model or another home from the caller.
  for (const name of ["DOWNCITY_HOME", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"]) delete cliEnv[name];
  const downcity = (commandArgs, cwd) =>
    run(join(bin, "downcity"), commandArgs, { cwd, env: cliEnv, timeoutMs: 60_000 });
  const projectDir = join(work, "cli-project");
  await step(`${cli.name}: npm i -g <tarball> into an empty prefix, fresh HOME, no compiler`, async () => {
    await run("npm", ["install", "--global", tarballs.get(cli.name), scopeFlag], { env: cliEnv });
    if (!existsSync(join(bin, "downcity")) || !existsSync(join(bin, "city")))
      throw new Error("bins downcity and city are not on PATH");
  });
  await step(`${cli.name}: installed size within ${cliSizeBudgetMiB} MiB`, () => {
    const { bytes, packages: count } = directorySize(join(prefix, "lib", "node_modules"));
    log(`      installed size: ${mib(bytes)} MiB in ${count} packages`);
    if (bytes > cliSizeBudgetMiB * 1024 * 1024)
      throw new Error(`${mib(bytes)} MiB is over the ${cliSizeBudgetMiB} MiB budget`);
  });
  let startedDaemon = false;
  await step(`${cli.name}: init, start, chat send hi against the scripted model`, async () => {
    mkdirSync(projectDir);
    await downcity(
      ["init", "--provider", "openai-compatible", "--model", "scripted", "--base-url", model.url],
      projectDir,
    );
    // A channel adapter named by package: not in the project, so it must resolve from the CLI's install.
    const configPath = join(projectDir, "downcity.json");
    const config = JSON.parse(readFileSync(configPath, "utf8"));
    config.channels = {
      hook: {
        adapter: "@downcity/adapters-webhook",
        listen: { host: "127.0.0.1", port: 0 },
        url: "http://127.0.0.1:9/replies",
        secret: "pack-check-secret-0123456789abcdef",
      },
    };
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    await downcity(["start"], projectDir);
    startedDaemon = true;
    const reply = await downcity(["chat", "send", "hi"], projectDir);
    if (!reply.includes(scriptedReply)) throw new Error(`unexpected reply: ${reply}`);
    log(`      reply: ${reply.trim()}`);
  });
  await step(`${cli.name}: a first-party adapter named in downcity.json loads from the install`, async () => {
    const listing = await downcity(["channels", "list", "--json"], projectDir);
    log(`      channels: ${listing.replace(/\s+/g, " ").slice(0, 300)}`);
    if (!listing.includes('"hook"') || /Cannot find|exports no channel adapter|"failed"/.test(listing)) {
      throw new Error(`the webhook channel did not load: ${listing}`);
    }
  });
  await step(`${cli.name}: doctor passes`, async () => {
    const report = await downcity(["doctor"], projectDir);
    log(report.trim().replace(/^/gm, "      "));
  });
  await step(`${cli.name}: demo runs offline (its scripted model ships with the install)`, async () => {
    // stdin is /dev/null: the demo's chat ends at once and the throwaway project is removed.
    await downcity(["demo"], work);
  });
  await step(`${cli.name}: stop`, async () => {
    if (startedDaemon) await downcity(["stop"], projectDir);
  });
}

await model.close();
await registry.close();
if (!keep) rmSync(work, { recursive: true, force: true });
log(
  `pack-check: ${failures.length === 0 ? "all passed" : `${failures.length} failed`} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
if (failures.length > 0) {
  log(failures.map((name) => `  - ${name}`).join("\n"));
  process.exit(1);
}
