import { afterEach, beforeEach, expect } from "vitest";
import type { ChannelAdapter } from "../channel/adapter/channel-adapter.js";
import { createRecordingContext, type RecordingContext } from "./recording-context.js";

/** Options of `useRecordingTestBed`. */
export interface RecordingTestBedOptions<Fake extends { close(): Promise<void> }> {
  /** Starts the adapter's fake platform; a fresh one for each test. */
  createFake(): Promise<Fake>;
  /** What no log line of the test may carry (an app secret, a token's pattern): checked after each test. */
  secrets?: Array<string | RegExp>;
  /** The instance name the adapter sees as `context.channel` ["test"]. */
  channel?: string;
}

/** What the tests of a `describe` using `useRecordingTestBed` reach; valid only inside a test. */
export interface RecordingTestBed<Fake> {
  /** This test's fake platform. */
  readonly fake: Fake;
  /** This test's recording context (the newest, after `restart`). */
  readonly recording: RecordingContext;
  /** Starts `adapter` on the current recording context; every adapter started is stopped after the test. */
  start<Adapter extends Pick<ChannelAdapter, "start" | "stop">>(adapter: Adapter): Promise<Adapter>;
  /** Makes a fresh recording context over the same state folder, as a restarted process would see it. */
  restart(): Promise<RecordingContext>;
}

/**
 * Registers vitest hooks giving each test of the enclosing `describe` a fresh fake platform and
 * recording context; after the test, stops the adapters it started, closes the fake, disposes the
 * contexts and fails the test when a log line carries one of `secrets`.
 */
export function useRecordingTestBed<Fake extends { close(): Promise<void> }>(
  options: RecordingTestBedOptions<Fake>,
): RecordingTestBed<Fake> {
  let fake: Fake | undefined;
  const recordings: RecordingContext[] = [];
  const adapters: Array<Pick<ChannelAdapter, "stop">> = [];
  const inTest = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the recording test bed is reached outside a test");
    return value;
  };

  beforeEach(async () => {
    fake = await options.createFake();
    recordings.push(await createRecordingContext({ channel: options.channel }));
  });
  afterEach(async () => {
    const used = recordings.splice(0);
    try {
      for (const adapter of adapters.splice(0).reverse()) await adapter.stop();
    } finally {
      await fake?.close();
      fake = undefined;
      for (const recording of [...used].reverse()) await recording.dispose();
    }
    const logged = JSON.stringify(used.map((recording) => recording.logs));
    for (const secret of options.secrets ?? [])
      if (typeof secret === "string") expect(logged).not.toContain(secret);
      else expect(logged).not.toMatch(secret);
  });

  return {
    get fake() {
      return inTest(fake);
    },
    get recording() {
      return inTest(recordings.at(-1));
    },
    async start(adapter) {
      const context = inTest(recordings.at(-1)).context;
      adapters.push(adapter);
      await adapter.start(context);
      return adapter;
    },
    async restart() {
      const next = await createRecordingContext({
        channel: options.channel,
        stateDir: inTest(recordings.at(-1)).context.stateDir,
      });
      recordings.push(next);
      return next;
    },
  };
}
