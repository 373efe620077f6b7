// The example at the top of a package README, made runnable in a consumer project: the identifiers it
// leaves to the reader (`model`, `registry`, `token`, ...) are declared before it; only the LLM is scripted.

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

/**
 * Per package: extra npm packages the example imports, declarations it expects, code to run after it
 * (closing what it opened), files it imports that stand in for a real provider, and its environment.
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
  "@downcity/adapters-feishu": {
    // The example reads the secret from the environment, as a project does from .env.
    env: { LARK_APP_SECRET: "pack-check-app-secret" },
  },
  "@downcity/adapters-qq": {
    env: { QQ_CLIENT_SECRET: "pack-check-client-secret" },
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
