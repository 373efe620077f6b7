// The scripted OpenAI-compatible model of the daemon soak, in its own process: the scripted server
// keeps every request for tests to assert on, so it must not share the measured daemon's memory.
// Answers each call with "ack <token>" for the last "turn-<n>" token the user sent; prints its URL
// as one JSON line on stdout, and stops on SIGTERM.
import { startOpenAICompatibleServer } from "@downcity/core/scripted";

function lastTurnToken(call) {
  for (let index = call.messages.length - 1; index >= 0; index -= 1) {
    const message = call.messages[index];
    const found = message.role === "user" ? /turn-\d+/.exec(message.text) : null;
    if (found) return found[0];
  }
  return "no-token";
}

const server = await startOpenAICompatibleServer({ respond: (call) => `ack ${lastTurnToken(call)}` });
// Drop what the stand-in records, so this process stays small over 9,000 calls too.
setInterval(() => {
  server.calls.length = 0;
  server.requests.length = 0;
}, 1000).unref();
process.on("SIGTERM", () => {
  server.close().finally(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
