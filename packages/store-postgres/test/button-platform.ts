// A chat platform with buttons and message edits (like Telegram's inline keyboards) for
// multi-worker approval tests, and the project-local channel adapter (`./button-adapter.mjs`) that
// each worker runs: events are POSTed to the worker's own port (a webhook), replies and edits go
// to the platform.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A message the bot sent, with its buttons. */
export interface ButtonMessage {
  messageId: string;
  chatId: string;
  text: string;
  actions: Array<{ id: string; label: string }>;
  pid: number;
}

/** An edit of a sent message (an empty `actions` removes its buttons). */
export interface ButtonEdit {
  messageId: string;
  text: string;
  actions?: Array<{ id: string; label: string }>;
  pid: number;
}

export interface ButtonPlatform {
  url: string;
  sends: ButtonMessage[];
  edits: ButtonEdit[];
  close(): Promise<void>;
}

export async function startButtonPlatform(): Promise<ButtonPlatform> {
  const sends: ButtonMessage[] = [];
  const edits: ButtonEdit[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const input = JSON.parse(body || "{}");
      if (req.url === "/send") {
        const messageId = `m${sends.length + 1}`;
        sends.push({
          messageId,
          chatId: input.chatId,
          text: input.text,
          actions: input.actions ?? [],
          pid: input.pid,
        });
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ messageId }));
        return;
      }
      if (req.url === "/edit") {
        edits.push({ messageId: input.messageId, text: input.text, actions: input.actions, pid: input.pid });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sends,
    edits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A channel adapter in one file with buttons (`capabilities.actions`) and edits: options
 * `{ platform, port }`; POST /events on its port accepts an event into the inbox.
 */
export const buttonAdapterSource = `import { createServer } from "node:http";

const options = { safeParse: (value) => ({ success: true, data: value }) };
const post = async (url, body) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, pid: process.pid }),
  });
  if (!response.ok) throw new Error("HTTP " + response.status);
  return await response.json();
};

export default {
  name: "buttons",
  options,
  create(config) {
    let server;
    return {
      capabilities: { maxTextLength: 4000, threads: false, markdown: "none", idempotentSends: false, actions: true },
      async start(context) {
        if (server) return;
        server = createServer((req, res) => {
          let body = "";
          req.on("data", (chunk) => { body += chunk; });
          req.on("end", async () => {
            try {
              const event = JSON.parse(body);
              await context.inbox.accept({ chatType: "direct", messageId: event.eventId, ...event });
              res.writeHead(202).end();
            } catch (error) {
              res.writeHead(500).end(String(error));
            }
          });
        });
        await new Promise((resolve) => server.listen(config.port, "127.0.0.1", resolve));
        context.setState("connected");
      },
      async stop() {
        if (!server) return;
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
      async send(target, message) {
        return await post(config.platform + "/send", { chatId: target.chatId, text: message.text, actions: message.actions });
      },
      editing: {
        async edit(target, messageId, message) {
          await post(config.platform + "/edit", { messageId, text: message.text, actions: message.actions });
        },
      },
    };
  },
};
`;
