import { join } from "node:path";
import {
  type AgentRuntime,
  createAgentRuntime,
  createHistoryStore,
  type HistoryStore,
  silentLogger,
} from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler } from "fastify-type-provider-zod";
import { afterEach, describe, expect, it } from "vitest";
import { registerErrorHandler } from "../plugins/error-handler.js";
import { zodValidatorCompiler } from "../plugins/zod-validator.js";
import { cancelRoute } from "./cancel-route.js";

const temp = useTempDir("dc-cancel-route-", "each");

/** Histories on files whose replay lookups wait for `release()`: a run held while it is starting. */
function heldLookupStore(rootDir: string) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let lookups = 0;
  const store: HistoryStore = {
    context(contextId) {
      const history = createHistoryStore({ dir: join(rootDir, "histories", encodeURIComponent(contextId)) });
      return {
        ...history,
        async findUserMessages(messageIds, { last }) {
          lookups += 1;
          await released;
          const wanted = new Set(messageIds);
          return (await history.read({ last })).filter(
            (message) => message.role === "user" && wanted.has(message.metadata?.messageId ?? ""),
          );
        },
      };
    },
    close: async () => {},
  };
  return { store, release, lookups: () => lookups };
}

describe("POST /api/chat/cancel", () => {
  let app: FastifyInstance | undefined;
  let runtime: AgentRuntime | undefined;
  afterEach(async () => {
    await app?.close();
    await runtime?.close();
  });

  it("answers with a run it stopped while the run was starting, and with none when nothing runs", async () => {
    const held = heldLookupStore(temp.path);
    const scripted = createScriptedModel(["this answer must not be given"]);
    runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model, sharedHistory: held.store });
    app = Fastify();
    app.setValidatorCompiler(zodValidatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandler(app, silentLogger);
    await app.register(cancelRoute, { runtime });
    const cancel = () =>
      app?.inject({ method: "POST", url: "/api/chat/cancel", payload: { contextId: "cli:main" } });

    const reply = runtime.send({ contextId: "cli:main", text: "hello", messageId: "m-1" });
    await until(() => held.lookups() === 1, "the run to look its batch up");
    const cancelling = cancel();
    held.release();
    const [response, result] = await Promise.all([cancelling, reply]);
    expect(response?.statusCode).toBe(200);
    expect(response?.json()).toEqual({ cancelled: [{ contextId: "cli:main", requestId: result.requestId }] });
    expect(result.aborted?.reason).toBe("cancelled");
    expect(scripted.calls).toHaveLength(0);
    expect((await cancel())?.json()).toEqual({ cancelled: [] });
  });
});
