// A worker that waits for a channel's poller lock, then says so on stdout and "polls" until killed.
import { acquirePollerLock } from "../src/poller-lock.js";

const [url, channel, name] = process.argv.slice(2) as [string, string, string];
await acquirePollerLock(url, channel, { retryMs: 100 });
process.stdout.write(`polling ${name}\n`);
setInterval(() => {}, 1000);
