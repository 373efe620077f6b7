import { DowncityError } from "../errors/downcity-error.js";

/**
 * A channel's small keyed state (a Telegram `getUpdates` offset, a QQ gateway session): JSON values
 * the adapter reads when it starts polling and writes as it goes, so the next poller resumes where
 * the last one stopped, on whichever worker it runs.
 */
export interface ChannelStateStore {
  /** The value last set under `key`, or undefined (never set, or unreadable: state is only a resume hint). */
  get(key: string): Promise<unknown>;
  /** Durably replaces the value under `key` (any JSON value, `null` included). */
  set(key: string, value: unknown): Promise<void>;
}

/** Adapter state of every channel of one agent; a `DowncityStore` without one keeps it in `.downcity/channels/<name>/state/`. */
export interface AdapterStateStore {
  channel(name: string): ChannelStateStore;
}

const keyPattern = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Checks a state key (lower-case letters, digits and dashes: the file driver names a file after it). */
export function checkAdapterStateKey(key: string): string {
  if (!keyPattern.test(key))
    throw new DowncityError(
      "INVALID_INPUT",
      `adapter state key "${key}" must be lower-case letters, digits and dashes (at most 64)`,
      { field: "key" },
    );
  return key;
}
