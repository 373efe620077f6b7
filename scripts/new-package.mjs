// Scaffolds one workspace package: node scripts/new-package.mjs <dir> <name> <description> [entry,...]
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [dir, name, description, entriesArg = "index"] = process.argv.slice(2);
if (!dir || !name || !description) {
  console.error("usage: node scripts/new-package.mjs <dir> <name> <description> [entry,...]");
  process.exit(2);
}
const entries = entriesArg.split(",");
const write = (file, text) => {
  const path = join(dir, file);
  if (!existsSync(path)) writeFileSync(path, text);
};
mkdirSync(join(dir, "src"), { recursive: true });
const exportKey = (entry) => (entry === "index" ? "." : `./${entry}`);
const exportsField = Object.fromEntries(
  entries.map((entry) => [
    exportKey(entry),
    { types: `./dist/${entry}.d.ts`, "downcity-source": `./src/${entry}.ts`, import: `./dist/${entry}.js` },
  ]),
);
write(
  "package.json",
  `${JSON.stringify(
    {
      name,
      version: "0.0.0",
      description,
      license: "MIT",
      type: "module",
      sideEffects: false,
      engines: { node: ">=20.19" },
      exports: exportsField,
      files: ["dist", "README.md"],
      scripts: {
        build: "tsup",
        typecheck: "tsc --noEmit",
        test: "vitest run",
      },
      dependencies: {},
      devDependencies: {},
    },
    null,
    2,
  )}\n`,
);
write(
  "tsconfig.json",
  `${JSON.stringify({ extends: "../../tsconfig.base.json", compilerOptions: { outDir: "dist", rootDir: "." }, include: ["src", "bench"] }, null, 2)}\n`,
);
write(
  "tsup.config.ts",
  `import { packageBuild } from "../../tsup.preset.ts";

export default packageBuild([${entries.map((e) => `"src/${e}.ts"`).join(", ")}]);
`,
);
write(
  "vitest.config.ts",
  `import { defineConfig } from "vitest/config";

// "downcity-source" resolves workspace packages to their TypeScript sources, so tests need no prior build.
export default defineConfig({
  resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] } },
  test: { name: "${name}", include: ["src/**/*.test.ts", "test/**/*.test.ts"], testTimeout: 30000, hookTimeout: 30000 },
});
`,
);
for (const entry of entries) {
  write(
    `src/${entry}.ts`,
    `/** The complete public surface of ${name}${entry === "index" ? "" : `/${entry}`}. */\nexport {};\n`,
  );
}
write("README.md", `# ${name}\n\n${description}\n`);
