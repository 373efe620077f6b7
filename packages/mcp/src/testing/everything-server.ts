import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@downcity/testkit";

const require = createRequire(import.meta.url);

/** The entry script of `@modelcontextprotocol/server-everything`. */
export const everythingEntry = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

/** The test server that registers a tool on demand (sends tools/list_changed mid-session). */
export const growingServerEntry = fileURLToPath(
  new URL("../../test/fixtures/growing-server.mjs", import.meta.url),
);

/** A stdio config that runs server-everything with this Node. */
export const everythingStdio = (): { type: "stdio"; command: string; args: string[] } => ({
  type: "stdio",
  command: process.execPath,
  args: [everythingEntry, "stdio"],
});

/** A server-everything process serving HTTP on 127.0.0.1. */
export interface EverythingHttpServer {
  url: string;
  port: number;
  child: ChildProcess;
  stop: () => Promise<void>;
}

/** Starts server-everything over Streamable HTTP (`/mcp`) or legacy SSE (`/sse`); resolves once it listens. */
export async function startEverythingHttp(
  options: { transport?: "streamableHttp" | "sse"; port?: number } = {},
): Promise<EverythingHttpServer> {
  const transport = options.transport ?? "streamableHttp";
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [everythingEntry, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${output}`)), 15000);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}${transport === "sse" ? "/sse" : "/mcp"}`,
    port,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Pids of the child processes (zombies included) of this process, read from /proc. */
export function childPids(): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === process.pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}
