import type { DoctorCheck } from "./doctor-command.js";

/** `downcity doctor`'s sandbox line: off, or on with a working bubblewrap (a failure says what to install). */
export async function checkSandbox(
  shellSection: unknown,
  env: Record<string, string | undefined>,
): Promise<DoctorCheck> {
  const sandbox = (
    shellSection as { sandbox?: { enabled?: boolean; network?: boolean; writable?: string[] } }
  )?.sandbox;
  if (!sandbox?.enabled)
    return {
      name: "sandbox",
      status: "skip",
      detail: "off: shell commands run with your user's rights (opt in with shell.sandbox.enabled)",
    };
  // @downcity/shell loads zod: only a doctor run with the sandbox on needs it.
  const { findBubblewrap } = await import("@downcity/shell");
  try {
    const bwrap = findBubblewrap({ env });
    const writable = (sandbox.writable ?? ["."]).join(", ");
    return {
      name: "sandbox",
      status: "ok",
      detail: `on: ${bwrap}; writable ${writable}; network ${sandbox.network ? "on" : "off"}; private /tmp`,
    };
  } catch (error) {
    return {
      name: "sandbox",
      status: "fail",
      detail: error instanceof Error ? error.message : String(error),
      fix: "apt-get install bubblewrap (Debian/Ubuntu), or set shell.sandbox.enabled to false",
    };
  }
}
