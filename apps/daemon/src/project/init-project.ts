import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { type LlmConfig, writeConfigJsonSchema } from "@downcity/core";

/** What `initProject` wrote and what it left alone. */
export interface InitProjectResult {
  rootDir: string;
  created: string[];
  skipped: string[];
}

const gitignoreLines = [".downcity/*", "!.downcity/schema/", ".env"];

const profileText = (name: string) => `# ${name}

You are the agent of this project. You can run shell commands in the project folder.

- Be brief and concrete; say what you ran and what happened.
- Ask before deleting files or running anything destructive.
`;

async function writeIfAbsent(path: string, text: string): Promise<boolean> {
  try {
    await writeFile(path, text, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Initialises a project: PROFILE.md, downcity.json, .downcity/ with the config schema, .gitignore entries; never overwrites. */
export async function initProject(
  dir: string,
  options: { name?: string; llm?: Partial<LlmConfig> } = {},
): Promise<InitProjectResult> {
  const rootDir = resolve(dir);
  await mkdir(rootDir, { recursive: true });
  const created: string[] = [];
  const skipped: string[] = [];
  const name = options.name ?? basename(rootDir);
  const record = (file: string, wrote: boolean) => (wrote ? created : skipped).push(file);

  record("PROFILE.md", await writeIfAbsent(join(rootDir, "PROFILE.md"), profileText(name)));
  const config = {
    $schema: "./.downcity/schema/downcity.schema.json",
    name,
    ...(options.llm ? { llm: options.llm } : {}),
  };
  record(
    "downcity.json",
    await writeIfAbsent(join(rootDir, "downcity.json"), `${JSON.stringify(config, null, 2)}\n`),
  );
  const schemaExisted = existsSync(join(rootDir, ".downcity", "schema", "downcity.schema.json"));
  // The schema is generated from the zod schema, so refreshing it is not overwriting a user file.
  await writeConfigJsonSchema(rootDir);
  record(".downcity/schema/downcity.schema.json", !schemaExisted);

  const gitignorePath = join(rootDir, ".gitignore");
  const current = await readFile(gitignorePath, "utf8").catch(() => undefined);
  const present = new Set((current ?? "").split(/\r?\n/).map((line) => line.trim()));
  const missing = gitignoreLines.filter((line) => !present.has(line));
  if (missing.length > 0) {
    const prefix = current && !current.endsWith("\n") ? "\n" : "";
    await appendFile(gitignorePath, `${prefix}# downcity runtime state\n${missing.join("\n")}\n`);
    created.push(".gitignore");
  } else skipped.push(".gitignore");
  return { rootDir, created, skipped };
}
