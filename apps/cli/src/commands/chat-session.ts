import { clearLine, createInterface, cursorTo } from "node:readline";
import type { CliIo } from "../cli-io.js";
import type { ChatEvent, DaemonClient } from "../daemon/load-daemon-api.js";
import { messageText } from "../output/message-text.js";

/** Options of `runChatSession`. */
export interface ChatSessionOptions {
  io: CliIo;
  client: DaemonClient;
  contextId: string;
  /** Lines printed before the first prompt (the demo announces its scripted model here). */
  banner?: string[];
  /** Ends the session from outside (the demo's cleanup). */
  signal?: AbortSignal;
}

type RunView = { streamed: string; open: boolean };

/**
 * The interactive `downcity chat`: reads lines, sends each through the cli channel, streams
 * the reply's text deltas as they arrive and prints messages the agent sends later on its own
 * (a background shell job's follow-up, for example). `/exit` or end of input leaves.
 */
export async function runChatSession(options: ChatSessionOptions): Promise<void> {
  const { io, client, contextId } = options;
  const out = io.stdout;
  const tty = io.interactive;
  const events = new AbortController();
  const runs = new Map<string, RunView>();
  const runEndWaiters = new Set<() => void>();
  let busy = false;
  let atLineStart = true;
  let printedThisTurn = false;
  let promptShown = false;
  let closed = false;

  const rl = createInterface({ input: io.stdin, output: out, terminal: tty });
  rl.setPrompt("you› ");

  const write = (text: string) => {
    if (!text) return;
    if (promptShown) {
      if (tty) {
        clearLine(out, 0);
        cursorTo(out, 0);
      } else out.write("\n");
      promptShown = false;
    }
    out.write(text);
    atLineStart = text.endsWith("\n");
  };
  const prompt = () => {
    // Without a terminal there is nobody to prompt: the transcript echoes each line instead.
    if (busy || closed || !tty) return;
    if (!atLineStart) write("\n");
    rl.prompt(true);
    promptShown = true;
  };
  const openAgentLine = () => {
    if (!atLineStart) write("\n");
    write("agent› ");
  };
  const runOf = (event: { requestId: string }): RunView => {
    const key = event.requestId;
    let run = runs.get(key);
    if (!run) {
      run = { streamed: "", open: false };
      runs.set(key, run);
    }
    return run;
  };

  const onEvent = (event: ChatEvent) => {
    if (event.type === "ready" || event.type === "context-compacted" || event.contextId !== contextId) return;
    switch (event.type) {
      case "run-start":
        runOf(event);
        break;
      case "text-delta": {
        const delta = event.delta;
        if (!delta) break;
        const run = runOf(event);
        if (!run.open) {
          openAgentLine();
          run.open = true;
        }
        write(delta);
        run.streamed += delta;
        printedThisTurn = true;
        break;
      }
      case "chat-message": {
        const text = event.text.trim();
        const run = runOf(event);
        if (!text || run.streamed.trim() === text) break;
        if (run.open) {
          write("\n");
          run.open = false;
        }
        openAgentLine();
        write(`${text}\n`);
        printedThisTurn = true;
        prompt();
        break;
      }
      case "run-end":
      case "run-error": {
        const run = runOf(event);
        if (run.open) write("\n");
        runs.delete(event.requestId);
        if (event.type === "run-error") {
          write(`error› ${event.message}${event.code ? ` (${event.code})` : ""}\n`);
          printedThisTurn = true;
        }
        for (const resolve of runEndWaiters) resolve();
        runEndWaiters.clear();
        prompt();
        break;
      }
    }
  };

  const listening = (async () => {
    try {
      for await (const event of client.chatEvents(contextId, { signal: events.signal })) onEvent(event);
    } catch (error) {
      if (!events.signal.aborted) write(`(live updates stopped: ${(error as Error).message})\n`);
    }
  })();

  const close = () => {
    if (closed) return;
    closed = true;
    rl.close();
  };
  options.signal?.addEventListener("abort", close, { once: true });
  rl.on("SIGINT", close);

  for (const line of options.banner ?? []) write(`${line}\n`);
  write(`Chatting in context ${contextId}. Type a message, /exit to leave.\n`);
  prompt();

  try {
    for await (const line of rl) {
      promptShown = false;
      atLineStart = true;
      const text = line.trim();
      if (text === "/exit" || text === "/quit") break;
      if (!text) {
        prompt();
        continue;
      }
      if (!tty) write(`you› ${text}\n`);
      busy = true;
      printedThisTurn = false;
      const ended = new Promise<void>((resolve) => runEndWaiters.add(resolve));
      try {
        const reply = await client.chatSend({ contextId, text });
        // The SSE stream may trail the HTTP reply by a moment; fall back to the reply itself.
        await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
        if (!printedThisTurn) {
          const replyText = messageText(reply);
          if (replyText) {
            openAgentLine();
            write(`${replyText}\n`);
          }
        }
      } catch (error) {
        // A run-error event may already have shown this failure.
        await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 100).unref())]);
        if (!printedThisTurn) write(`error› ${(error as Error).message}\n`);
      } finally {
        busy = false;
      }
      prompt();
    }
  } finally {
    close();
    events.abort();
    await Promise.race([listening, new Promise((resolve) => setTimeout(resolve, 200).unref())]);
    if (!atLineStart) out.write("\n");
  }
}
