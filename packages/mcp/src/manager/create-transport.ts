import { isAbsolute, resolve } from "node:path";
import { isProcessAlive } from "@downcity/core";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../config/mcp-config.js";

/** A transport for one server plus what the manager needs to supervise it. */
export interface ServerTransport {
  transport: Transport;
  /** The stdio child's pid once started. */
  pid(): number | undefined;
  /** The last lines the stdio child wrote to stderr (for error messages). */
  stderrTail(): string;
  /** Closes the transport; for stdio, ends stdin, then SIGTERM after `graceMs`, then SIGKILL. */
  close(graceMs: number): Promise<void>;
}

const stderrTailLines = 20;

/** Builds the SDK transport for a validated server config: stdio child process, SSE, or Streamable HTTP. */
export function createTransport(
  config: McpServerConfig,
  options: { baseDir: string; onStderrLine: (line: string) => void },
): ServerTransport {
  if (config.type === "stdio") {
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      ...(config.env ? { env: config.env } : {}),
      cwd: config.cwd
        ? isAbsolute(config.cwd)
          ? config.cwd
          : resolve(options.baseDir, config.cwd)
        : options.baseDir,
      stderr: "pipe",
    });
    const tail: string[] = [];
    let partial = "";
    // Always drained so a chatty server never blocks on a full stderr pipe.
    transport.stderr?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > stderrTailLines) tail.shift();
        options.onStderrLine(line);
      }
    });
    return {
      transport,
      pid: () => transport.pid ?? undefined,
      stderrTail: () => [...tail, partial].filter((line) => line.trim()).join("\n"),
      async close(graceMs) {
        const pid = transport.pid ?? undefined;
        const terminate = pid === undefined ? undefined : setTimeout(() => signal(pid, "SIGTERM"), graceMs);
        try {
          await transport.close();
        } finally {
          if (terminate) clearTimeout(terminate);
        }
        if (pid !== undefined) await waitForExit(pid, 2000);
      },
    };
  }
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const url = new URL(config.url);
  if (config.type === "sse") {
    const transport = new SSEClientTransport(url, requestInit ? { requestInit } : undefined);
    return { transport, pid: () => undefined, stderrTail: () => "", close: () => transport.close() };
  }
  const transport = new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : undefined);
  return {
    transport,
    pid: () => undefined,
    stderrTail: () => "",
    async close() {
      // Ends the server-side session politely; servers without sessions answer 405, which is fine.
      if (transport.sessionId) {
        await Promise.race([
          transport.terminateSession().catch(() => undefined),
          new Promise((done) => setTimeout(done, 1000).unref()),
        ]);
      }
      await transport.close();
    },
  };
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) {
      signal(pid, "SIGKILL");
      return;
    }
    await new Promise((done) => setTimeout(done, 20));
  }
}
