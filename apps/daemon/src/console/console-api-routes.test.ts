import { describe, expect, test } from "vitest";
import type { ConsoleAgents } from "./console-agents.js";
import { createConsoleApiRoutes } from "./console-api-routes.js";

describe("the console's service commands", () => {
  test("an approval answered in the console is sent as the console's; other commands pass as typed", async () => {
    const sent: unknown[] = [];
    const agents = {
      client: async () => ({
        servicesCommand: async (command: unknown) => {
          sent.push(command);
          return { ok: true };
        },
      }),
    } as unknown as ConsoleAgents;
    const command = createConsoleApiRoutes(agents)["POST command"];
    if (!command) throw new Error("no POST command route");
    const post = (service: string, action: string, payload: Record<string, unknown>) =>
      command({ query: new URLSearchParams(), body: { agent: "/p", service, action, payload } });
    await post("approvals", "approve", { code: "K7Q2", always: true, via: "cli" });
    await post("approvals", "deny", { code: "K7Q2" });
    await post("approvals", "list", {});
    await post("access", "approve", { code: "ABCD" });
    expect(sent).toEqual([
      { service: "approvals", action: "approve", payload: { code: "K7Q2", always: true, via: "console" } },
      { service: "approvals", action: "deny", payload: { code: "K7Q2", via: "console" } },
      { service: "approvals", action: "list", payload: {} },
      { service: "access", action: "approve", payload: { code: "ABCD" } },
    ]);
  });
});
