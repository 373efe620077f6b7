import { existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ShellSandboxOptions } from "./sandbox-options.js";

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The bubblewrap arguments confining one command: the whole file system read-only, `/dev`,
 * `/proc` and a private `/tmp` of its own, the writable paths bound back read-write (by their
 * real path, so a symlink cannot redirect a bind), hidden folders under an empty tmpfs and hidden
 * files behind /dev/null, and no
 * network unless allowed. The caller appends `--` and the command.
 */
export function bubblewrapArgs(options: {
  rootDir: string;
  cwd: string;
  sandbox: ShellSandboxOptions;
}): string[] {
  const { sandbox } = options;
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const entry of sandbox.writable ?? ["."]) {
    const path = isAbsolute(entry) ? entry : resolve(options.rootDir, entry);
    // A writable path that does not exist yet is created, so the bind cannot fail the command.
    if (!existsSync(path)) mkdirSync(path, { recursive: true });
    const real = realPath(path);
    args.push("--bind", real, real);
    if (real !== path) args.push("--bind", real, path);
  }
  for (const entry of sandbox.readOnly ?? []) {
    const path = isAbsolute(entry) ? entry : resolve(options.rootDir, entry);
    if (existsSync(path)) args.push("--ro-bind", realPath(path), realPath(path));
  }
  for (const entry of sandbox.hidden ?? []) {
    const path = isAbsolute(entry) ? entry : resolve(options.rootDir, entry);
    if (!existsSync(path)) continue;
    // A folder is covered by an empty tmpfs, a file (such as `.env`) by the empty /dev/null.
    if (statSync(path).isDirectory()) args.push("--tmpfs", realPath(path));
    else args.push("--ro-bind", "/dev/null", realPath(path));
  }
  if (sandbox.network !== true) args.push("--unshare-net");
  // No --new-session: the engine finds and signals a command's processes by its process group.
  args.push("--die-with-parent", "--chdir", options.cwd);
  return args;
}
