// A polling adapter over a real file inbox, in its own process so the kill loop can SIGKILL it anywhere.
import { openFileStore, silentLogger } from "@downcity/core";
import { createTelegramAdapter } from "../src/index.js";

const [apiRoot, token, stateDir, inboxPath] = process.argv.slice(2) as [string, string, string, string];
const { inbox } = await openFileStore({ rootDir: stateDir, inboxPath });
const adapter = createTelegramAdapter(
  { token, apiRoot, pollTimeoutSeconds: 1 },
  { backoff: { initialMs: 20, maxMs: 200 } },
);
await adapter.start({
  channel: "tg",
  stateDir,
  logger: silentLogger,
  signal: new AbortController().signal,
  setState: () => {},
  inbox: {
    // A slow disk: widens the window in which a premature confirmation would be caught by a kill.
    accept: async (event) =>
      (
        await new Promise((resolve) => setTimeout(resolve, 15)).then(() =>
          inbox.accept({
            channel: "tg",
            eventId: event.eventId,
            contextId: `tg:${event.chatId}`,
            message: { text: event.text },
          }),
        )
      ).result,
  },
});
process.stdout.write("ready\n");
