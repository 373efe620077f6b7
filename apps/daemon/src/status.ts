/**
 * `@downcity/daemon/status`: what a client reads from the project folder without talking to the
 * daemon (whether it runs, and the context a chat goes to by default). No HTTP client, no zod
 * unless there is a daemon.json to check: the CLI's `status` and its command registration load
 * only this.
 */
export { defaultContextId } from "./chat/default-context-id.js";
export { type DaemonStatus, daemonStatus } from "./process/daemon-status.js";
