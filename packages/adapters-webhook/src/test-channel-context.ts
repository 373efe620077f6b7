import { tmpdir } from "node:os";
import { type ChannelContext, type ChannelInbox, type ChannelState, silentLogger } from "@downcity/core";

/** A channel context around `inbox`, recording every state the adapter reports (this package's tests only). */
export function createTestChannelContext(inbox: ChannelInbox) {
  const controller = new AbortController();
  const states: Array<{ state: ChannelState; error?: string }> = [];
  const context: ChannelContext = {
    channel: "hook",
    inbox,
    logger: silentLogger,
    signal: controller.signal,
    stateDir: tmpdir(),
    setState: (state, error) => states.push(error === undefined ? { state } : { state, error }),
  };
  return { context, states, abort: () => controller.abort() };
}
