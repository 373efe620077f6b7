import { afterEach } from "vitest";
import { createTelegramAdapter } from "../telegram-adapter.js";
import { type FakeTelegramServer, startFakeTelegramServer } from "./fake-telegram-server.js";

/** A Telegram adapter against a fresh fake per test (`adapter()`), the fake closed after each test. */
export function useFakeTelegramAdapter() {
  let current: FakeTelegramServer | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    /** The fake behind the last `adapter()`. */
    get fake(): FakeTelegramServer {
      if (!current) throw new Error("call adapter() before using the fake");
      return current;
    },
    async adapter() {
      current = await startFakeTelegramServer();
      return createTelegramAdapter({ token: current.token, apiRoot: current.url });
    },
  };
}
