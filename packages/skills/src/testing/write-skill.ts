import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Test-only: a fresh temporary project folder. */
export function makeProject(): Promise<string> {
  return mkdtemp(join(tmpdir(), "downcity-skills-"));
}

/** Test-only: writes `<dir>/SKILL.md` from front matter lines and a body, plus any extra files. */
export async function writeSkill(
  dir: string,
  frontMatter: string,
  body = "Follow these steps.",
  files: Record<string, string> = {},
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, "SKILL.md");
  await writeFile(path, `---\n${frontMatter}\n---\n\n${body}\n`);
  for (const [relative, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, relative)), { recursive: true });
    await writeFile(join(dir, relative), content);
  }
  return path;
}
