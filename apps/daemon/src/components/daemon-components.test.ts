import { describe, expect, it } from "vitest";
import type { DaemonParts } from "../host/daemon-parts.js";
import { orderComponents } from "../host/setup-components.js";
import { daemonComponents } from "./daemon-components.js";

describe("daemonComponents", () => {
  it("come up in the order the README states and so close in its reverse: intake first, the store last", () => {
    const order = orderComponents(daemonComponents, ["context"]).map((component) => component.name);
    expect(order).toEqual([
      "store",
      "runtime",
      "usage",
      "telemetry",
      "shell",
      "retention",
      "credentials",
      "approvals",
      "channels",
      "services",
      "http",
      "runs",
      "jobs",
      "plugins",
      "intake",
    ]);
    // The shutdown guarantees, as positions in the close order (the reverse of set-up).
    const closing = [...order].reverse();
    const before = (first: keyof DaemonParts, then: keyof DaemonParts) =>
      closing.indexOf(first) < closing.indexOf(then);
    expect(before("intake", "plugins")).toBe(true); // intake stops before anything shuts down
    expect(before("plugins", "runs")).toBe(true); // plug-ins may still use the runtime
    expect(before("channels", "telemetry")).toBe(true); // the last deliveries still make spans
    for (const used of ["http", "channels", "credentials", "shell", "usage", "telemetry", "store"] as const)
      expect(before("runs", used), `runs drain before ${used} closes`).toBe(true);
  });
});
