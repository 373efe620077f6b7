import type { IncomingMessage, ServerResponse } from "node:http";
import type { DaemonClient } from "../client/create-daemon-client.js";

/** An open server-sent event response: `send` writes one named event, `closed` tells when the browser left. */
export interface EventResponse {
  send(event: string, data: unknown): void;
  readonly closed: boolean;
  readonly signal: AbortSignal;
  end(): void;
}

/** Starts an SSE response that pings every `keepAliveMs` and aborts `signal` when the browser goes away. */
export function openEventResponse(
  request: IncomingMessage,
  response: ServerResponse,
  options: { keepAliveMs?: number } = {},
): EventResponse {
  const controller = new AbortController();
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  response.flushHeaders();
  const keepAlive = setInterval(() => response.write(": keep-alive\n\n"), options.keepAliveMs ?? 15000);
  const finish = () => {
    clearInterval(keepAlive);
    controller.abort();
  };
  request.on("close", finish);
  return {
    send(event, data) {
      if (!controller.signal.aborted) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    get closed() {
      return controller.signal.aborted;
    },
    signal: controller.signal,
    end() {
      finish();
      response.end();
    },
  };
}

/** Passes a daemon's chat event stream through to the browser, event for event, until either side ends. */
export async function relayChatEvents(
  client: DaemonClient,
  contextId: string | undefined,
  events: EventResponse,
): Promise<void> {
  try {
    for await (const event of client.chatEvents(contextId, { signal: events.signal })) {
      events.send(event.type, event);
    }
  } catch (error) {
    events.send("stream-error", { message: error instanceof Error ? error.message : String(error) });
  } finally {
    events.end();
  }
}

type ShellCall = (action: string, payload: Record<string, unknown>) => Promise<unknown>;

const finished = (status: string) => !["starting", "running"].includes(status);

/**
 * Follows a shell session's combined output from cursor 0: reads what is there, then blocks in the
 * engine's own `wait` until new output or exit; sends `output` chunks and `status` changes.
 */
export async function relayShellOutput(
  client: DaemonClient,
  shellId: string,
  events: EventResponse,
): Promise<void> {
  const call: ShellCall = async (action, payload) =>
    (await client.servicesCommand({ service: "shell", action, payload: { shell_id: shellId, ...payload } }))
      .result;
  let cursor = 0;
  let lastStatus = "";
  try {
    while (!events.closed) {
      const read = (await call("read", { cursor, max_bytes: 65536 })) as {
        output: string;
        next_cursor: number;
        has_more: boolean;
      };
      if (read.output) events.send("output", { text: read.output, cursor: read.next_cursor });
      cursor = read.next_cursor;
      if (read.has_more) continue;
      const status = (await call("status", {})) as { status: string; exit_code: number | null };
      if (status.status !== lastStatus) {
        lastStatus = status.status;
        events.send("status", { status: status.status, exitCode: status.exit_code });
      }
      if (finished(status.status)) {
        // Output written between the read and the exit is read once more before ending.
        const rest = (await call("read", { cursor, max_bytes: 1048576 })) as {
          output: string;
          next_cursor: number;
        };
        if (rest.output) events.send("output", { text: rest.output, cursor: rest.next_cursor });
        // Tells the page not to reconnect: a reconnect would replay the output from the start.
        events.send("end", {});
        break;
      }
      await call("wait", { cursor, until: "any", timeout_ms: 10000 });
    }
  } catch (error) {
    events.send("stream-error", { message: error instanceof Error ? error.message : String(error) });
  } finally {
    events.end();
  }
}
