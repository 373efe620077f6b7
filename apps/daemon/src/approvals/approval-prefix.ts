import { programName } from "./effective-commands.js";

/** Programs whose first argument is a subcommand worth keeping apart (`git push` is not `git status`). */
const subcommandPrograms = new Set(
  "git npm pnpm yarn npx bun deno docker podman kubectl helm cargo go pip pip3 uv poetry apt apt-get brew systemctl journalctl gh make terraform gcloud aws az dotnet mvn gradle composer rails bundle".split(
    " ",
  ),
);

/**
 * The pattern an "always" answer stores for one command: its program, plus the subcommand for
 * programs that have them, then ` *`, so the next call with other arguments is covered too
 * (`touch marker` → `touch *`, `git push origin main` → `git push *`). The program stays as
 * written: approving `./tool` never approves another `tool`.
 */
export function approvalPrefix(words: readonly string[]): string {
  const [program = "", first] = words;
  const sub =
    subcommandPrograms.has(programName(program)) && first !== undefined && /^[a-z][\w:.-]*$/.test(first)
      ? ` ${first}`
      : "";
  return `${program}${sub} *`;
}
