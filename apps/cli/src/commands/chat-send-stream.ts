import type { CliIo } from "../cli-io.js";
import type { ChatEvent, ChatReply, DaemonClient } from "../daemon/load-daemon-api.js";
import type { Colors } from "../output/colors.js";
import { startProgress } from "../output/progress.js";
import { loadReplyRendering } from "../output/reply-markdown.js";
import { createRunView } from "../output/run-view.js";

/**
 * `downcity chat send` on a terminal: subscribes to the context's events first, sends, and prints
 * the reply text and tool lines as they arrive; the reply itself is printed when nothing streamed.
 * Ctrl-C cancels the run (the reply then is the cancel notice).
 */
export async function streamChatSend(options: {
  io: CliIo;
  client: DaemonClient;
  contextId: string;
  text: string;
  colors: Colors;
}): Promise<ChatReply> {
  const { io, client, colors } = options;
  const { contextId } = options;
  const events = new AbortController();
  let atLineStart = true;
  let printed = false;
  const ends = new Map<string, () => void>();
  const ended = new Set<string>();
  const waiting = startProgress({ stream: io.stdout, label: "thinking", enabled: true, style: colors.dim });
  const write = (text: string) => {
    if (!text) return;
    waiting.stop();
    io.stdout.write(text);
    atLineStart = text.endsWith("\n");
  };
  const rendering = loadReplyRendering({ colors, isTTY: true });
  const view = createRunView({
    write,
    atLineStart: () => atLineStart,
    colors,
    live: true,
    ...(rendering.render ? { render: rendering.render } : {}),
  });
  let ready: () => void = () => {};
  const subscribed = new Promise<void>((resolve) => {
    ready = resolve;
  });
  let sent = false;
  const onEvent = (event: ChatEvent) => {
    if (event.type === "ready") {
      ready();
      return;
    }
    if (!sent || event.type === "context-compacted" || event.contextId !== contextId) return;
    if (view.handle(event)) printed = true;
    if (event.type === "run-end" || event.type === "run-error") {
      ended.add(event.requestId);
      ends.get(event.requestId)?.();
    }
  };
  const listening = (async () => {
    try {
      for await (const event of client.chatEvents(contextId, { signal: events.signal })) onEvent(event);
    } catch {
      // Live output is a bonus: the reply below still arrives.
    } finally {
      ready();
    }
  })();
  const onInterrupt = () => {
    view.print(colors.dim("(cancelling the reply)\n"));
    // A second Ctrl-C meets Node's default handler again (once) and ends the command.
    client.chatCancel({ contextId }).catch((error: unknown) => {
      view.print(colors.red(`error› could not cancel: ${(error as Error).message}\n`));
    });
  };
  process.once("SIGINT", onInterrupt);
  try {
    await Promise.all([
      Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, 2000).unref())]),
      rendering.ready,
    ]);
    sent = true;
    const reply = await client.chatSend({ text: options.text, contextId });
    // The stream may trail the HTTP reply by a moment.
    if (!ended.has(reply.requestId)) {
      await Promise.race([
        new Promise<void>((resolve) => ends.set(reply.requestId, resolve)),
        new Promise((resolve) => setTimeout(resolve, 500).unref()),
      ]);
    }
    view.flush();
    if (!printed && reply.text) view.printReply(reply.text);
    else view.print("");
    return reply;
  } finally {
    waiting.stop();
    process.off("SIGINT", onInterrupt);
    events.abort();
    await Promise.race([listening, new Promise((resolve) => setTimeout(resolve, 200).unref())]);
  }
}
