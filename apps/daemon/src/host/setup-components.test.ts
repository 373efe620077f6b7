import { describe, expect, it } from "vitest";
import { componentOf } from "./define-component.js";
import { orderComponents, setupComponents } from "./setup-components.js";

interface Parts {
  config: { prefix: string };
  store: string;
  runtime: string;
  http: string;
}

const component = componentOf<Parts>();
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Components that record their set-up and close into `events`; declared out of dependency order on purpose. */
const recording = (events: string[], failIn?: keyof Parts) => [
  component({
    name: "http",
    dependsOn: ["runtime", "config"],
    setup: ({ runtime, config }) => {
      if (failIn === "http") throw new Error("port taken");
      events.push(`setup http(${runtime})`);
      return { value: `${config.prefix}http`, close: () => void events.push("close http") };
    },
  }),
  component({
    name: "runtime",
    dependsOn: ["store"],
    setup: ({ store }) => {
      events.push(`setup runtime(${store})`);
      return { value: "runtime", close: () => void events.push("close runtime") };
    },
  }),
  component({
    name: "store",
    dependsOn: [],
    setup: () => {
      events.push("setup store");
      return {
        value: "store",
        close: () => {
          events.push("close store");
          throw new Error("disk gone");
        },
      };
    },
  }),
];

describe("setupComponents", () => {
  it("sets components up after what they depend on and closes them in reverse: the last set up closes first", async () => {
    const events: string[] = [];
    const warnings: string[] = [];
    const host = await setupComponents<Parts, "config">({
      given: { config: { prefix: "my-" } },
      components: recording(events),
      logger: { ...silent, warn: (fields) => void warnings.push(String(fields.component)) },
    });
    expect(host.order).toEqual(["store", "runtime", "http"]);
    expect(host.parts.http).toBe("my-http");
    await host.close();
    expect(events).toEqual([
      "setup store",
      "setup runtime(store)",
      "setup http(runtime)",
      "close http",
      "close runtime",
      "close store",
    ]);
    // A failing close is logged, never thrown, and a second close does nothing.
    expect(warnings).toEqual(["store"]);
    await host.close();
    expect(events).toHaveLength(6);
  });

  it("closes what was set up, in reverse, when a later component fails, and rethrows", async () => {
    const events: string[] = [];
    await expect(
      setupComponents<Parts, "config">({
        given: { config: { prefix: "" } },
        components: recording(events, "http"),
        logger: silent,
      }),
    ).rejects.toThrow("port taken");
    expect(events).toEqual(["setup store", "setup runtime(store)", "close runtime", "close store"]);
  });

  it("names a missing dependency and a cycle", () => {
    const lonely = component({ name: "http", dependsOn: ["runtime"], setup: () => ({ value: "" }) });
    expect(() => orderComponents<Parts>([lonely], [])).toThrow(
      'component "http" depends on "runtime", which nothing provides',
    );
    const a = component({ name: "store", dependsOn: ["runtime"], setup: () => ({ value: "" }) });
    const b = component({ name: "runtime", dependsOn: ["store"], setup: () => ({ value: "" }) });
    expect(() => orderComponents<Parts>([a, b], [])).toThrow("store -> runtime -> store");
  });
});
