import { clearLine, createInterface, cursorTo } from "node:readline";
import type { CliIo } from "../cli-io.js";
import type { ChatEvent, DaemonClient } from "../daemon/load-daemon-api.js";
import { type Colors, createColors } from "../output/colors.js";
import { messageText } from "../output/message-text.js";
import { type Progress, startProgress } from "../output/progress.js";
import { loadReplyRendering } from "../output/reply-markdown.js";
import { createRunView } from "../output/run-view.js";

/** Options of `runChatSession`. */
export interface ChatSessionOptions {
  io: CliIo;
  client: DaemonClient;
  contextId: string;
  /** Lines printed before the first prompt (the demo announces its scripted model here). */
  banner?: string[];
  /** Ends the session from outside (the demo's cleanup). */
  signal?: AbortSignal;
  /** Overrides the colours derived from the environment and the terminal. */
  colors?: Colors;
}

/**
 * The interactive `downcity chat`: reads lines, sends each through the cli channel, streams the
 * reply's text and one dim line per tool call as they arrive, and prints messages the agent sends
 * later on its own (a background shell job's follow-up, for example). Ctrl-C during a reply cancels
 * it; Ctrl-C again (or while idle), `/exit` or end of input leaves.
 */
export async function runChatSession(options: ChatSessionOptions): Promise<void> {
  const { io, client, contextId } = options;
  const out = io.stdout;
  const tty = io.interactive;
  const colors = options.colors ?? createColors({ env: io.env, isTTY: tty });
  const events = new AbortController();
  const runEndWaiters = new Set<() => void>();
  let busy = false;
  let cancelRequested = false;
  let atLineStart = true;
  let printedThisTurn = false;
  let promptShown = false;
  let closed = false;
  let waiting: Progress | undefined;
  let leave: () => void = () => {};
  const left = new Promise<"left">((resolve) => {
    leave = () => resolve("left");
  });

  const rl = createInterface({ input: io.stdin, output: out, terminal: tty });
  rl.setPrompt("you› ");

  const write = (text: string) => {
    if (!text) return;
    waiting?.stop();
    waiting = undefined;
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
  const rendering = loadReplyRendering({ colors, isTTY: tty });
  const view = createRunView({
    write,
    atLineStart: () => atLineStart,
    colors,
    live: tty,
    replyPrefix: "agent› ",
    ...(rendering.render ? { render: rendering.render } : {}),
  });

  const onEvent = (event: ChatEvent) => {
    if (event.type === "ready" || event.type === "context-compacted" || event.contextId !== contextId) return;
    if (view.handle(event)) printedThisTurn = true;
    if (event.type === "chat-message" && !busy) prompt();
    if (event.type === "run-end" || event.type === "run-error") {
      for (const resolve of runEndWaiters) resolve();
      runEndWaiters.clear();
      prompt();
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
    leave();
  };
  options.signal?.addEventListener("abort", close, { once: true });
  rl.on("SIGINT", () => {
    if (!busy || cancelRequested) {
      close();
      return;
    }
    cancelRequested = true;
    view.print(colors.dim("(cancelling the reply; Ctrl-C again leaves)\n"));
    client.chatCancel({ contextId }).catch((error: unknown) => {
      view.print(colors.red(`error› could not cancel: ${(error as Error).message}\n`));
    });
  });

  for (const line of options.banner ?? []) write(`${line}\n`);
  write(`Chatting in context ${contextId}. Type a message, /exit to leave; Ctrl-C cancels a reply.\n`);
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
      cancelRequested = false;
      printedThisTurn = false;
      waiting = startProgress({ stream: out, label: "thinking", enabled: tty, style: colors.dim });
      const ended = new Promise<void>((resolve) => runEndWaiters.add(resolve));
      try {
        await rendering.ready;
        const reply = await Promise.race([client.chatSend({ contextId, text }), left]);
        if (reply === "left") break;
        // The SSE stream may trail the HTTP reply by a moment; fall back to the reply itself.
        await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
        view.flush();
        if (!printedThisTurn) {
          const replyText = messageText(reply);
          if (replyText) view.printReply(replyText);
        }
      } catch (error) {
        // A run-error event may already have shown this failure.
        await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 100).unref())]);
        if (!printedThisTurn) view.print(colors.red(`error› ${(error as Error).message}\n`));
      } finally {
        busy = false;
        waiting?.stop();
        waiting = undefined;
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
