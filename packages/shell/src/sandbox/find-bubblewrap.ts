import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { ShellError } from "../shell-error.js";

function onPath(name: string, pathValue: string | undefined): string | undefined {
  for (const dir of (pathValue ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/**
 * Finds a working `bwrap` (bubblewrap) or throws SANDBOX_UNAVAILABLE naming the package to
 * install; it also runs `bwrap` once, since a kernel without unprivileged user namespaces has
 * the binary but cannot use it. There is never a silent fallback to running unconfined.
 */
export function findBubblewrap(options: {
  bwrapPath?: string;
  env?: Record<string, string | undefined>;
}): string {
  const found = options.bwrapPath ?? onPath("bwrap", (options.env ?? process.env).PATH);
  if (!found) {
    throw new ShellError(
      "SANDBOX_UNAVAILABLE",
      "shell.sandbox is enabled but bwrap is not on PATH: install the bubblewrap package " +
        "(Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or set shell.sandbox.enabled to false",
    );
  }
  const probe = spawnSync(found, ["--ro-bind", "/", "/", "--unshare-net", "--", "/bin/sh", "-c", "exit 0"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  if (probe.status !== 0) {
    const reason = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim();
    throw new ShellError(
      "SANDBOX_UNAVAILABLE",
      `shell.sandbox is enabled but ${found} cannot create a sandbox here (${reason}); ` +
        "install the bubblewrap package and enable unprivileged user namespaces " +
        "(sysctl kernel.unprivileged_userns_clone=1), or set shell.sandbox.enabled to false",
    );
  }
  return found;
}
