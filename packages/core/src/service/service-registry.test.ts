import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineService } from "./define-service.js";
import { createServiceRegistry } from "./service-registry.js";

const makeService = (log: string[]) =>
  defineService({
    name: "notes",
    actions: {
      add: {
        description: "Add a note",
        input: z.strictObject({ text: z.string().min(1), tags: z.array(z.string()).default([]) }),
        handler: (input) => ({ added: input.text, tags: input.tags }),
      },
    },
    start: () => {
      log.push("start");
    },
    stop: () => {
      log.push("stop");
    },
    status: () => ({ notes: 0 }),
  });

describe("createServiceRegistry", () => {
  it("validates input, invokes handlers and lists JSON Schemas of actions", async () => {
    const registry = createServiceRegistry();
    registry.register(makeService([]));
    await expect(registry.invoke("notes", "add", { text: "hi" })).resolves.toEqual({ added: "hi", tags: [] });
    await expect(registry.invoke("notes", "add", { text: "" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      field: "payload.text",
    });
    await expect(registry.invoke("notes", "add", { text: "x", extra: 1 })).rejects.toMatchObject({
      message: expect.stringContaining("extra"),
    });
    await expect(registry.invoke("nope", "add", {})).rejects.toMatchObject({ code: "SERVICE_NOT_FOUND" });
    await expect(registry.invoke("notes", "nope", {})).rejects.toMatchObject({ code: "ACTION_NOT_FOUND" });
    const [summary] = registry.list();
    expect(summary?.actions[0]).toMatchObject({ name: "add", description: "Add a note" });
    expect((summary?.actions[0]?.inputSchema as { required?: string[] } | undefined)?.required).toEqual([
      "text",
    ]);
  });

  it("controls the lifecycle", async () => {
    const log: string[] = [];
    const registry = createServiceRegistry();
    registry.register(makeService(log));
    expect(registry.list()[0]?.state).toBe("stopped");
    await expect(registry.control("notes", "start")).resolves.toMatchObject({
      state: "running",
      detail: { notes: 0 },
    });
    await registry.control("notes", "restart");
    await registry.stopAll();
    expect(log).toEqual(["start", "stop", "start", "stop"]);
    expect(() => registry.register(makeService(log))).toThrow(/already registered/);
  });
});
