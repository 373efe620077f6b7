import { describe, expect, it } from "vitest";
import { createChatCommandRegistry, defineChatCommand } from "./chat-command-registry.js";

const registryWith = (...names: string[]) => {
  const registry = createChatCommandRegistry();
  for (const name of names) registry.register({ name, description: `does ${name}`, handler: () => name });
  return registry;
};

describe("chat command registry", () => {
  it("parses /name, /name@bot and arguments; unknown commands are no commands", () => {
    const registry = registryWith("approve", "stop");
    const direct = { chatType: "direct" as const, mentionedBot: false };
    expect(registry.parse({ ...direct, text: "/stop" })?.command.name).toBe("stop");
    expect(registry.parse({ ...direct, text: " /STOP@city_bot " })?.command.name).toBe("stop");
    expect(registry.parse({ ...direct, text: "/approve K7Q2  always" })?.args).toBe("K7Q2  always");
    expect(registry.parse({ ...direct, text: "/unknown" })).toBeUndefined();
    expect(registry.parse({ ...direct, text: "please /stop" })).toBeUndefined();
  });

  it("in a group, a bare /name counts only with the bot's mention or an @bot suffix", () => {
    const registry = registryWith("stop");
    const group = { chatType: "group" as const };
    expect(registry.parse({ ...group, mentionedBot: false, text: "/stop" })).toBeUndefined();
    expect(registry.parse({ ...group, mentionedBot: true, text: "/stop" })?.command.name).toBe("stop");
    expect(registry.parse({ ...group, mentionedBot: false, text: "/stop@city_bot" })?.command.name).toBe(
      "stop",
    );
  });

  it("a command marked answersWithoutMention counts bare in a group; a suffix (another bot's) is not lifted", () => {
    const registry = registryWith("stop");
    registry.register({
      name: "approve",
      description: "yes",
      handler: () => "",
      answersWithoutMention: true,
    });
    const group = { chatType: "group" as const, mentionedBot: false };
    expect(registry.parse({ ...group, text: "/approve K7Q2" })?.args).toBe("K7Q2");
    expect(registry.answersWithoutMention("/approve K7Q2")).toBe(true);
    expect(registry.answersWithoutMention(" /APPROVE ")).toBe(true);
    expect(registry.answersWithoutMention("/approve@other_bot K7Q2")).toBe(false);
    expect(registry.answersWithoutMention("/stop")).toBe(false);
    expect(registry.answersWithoutMention("approve K7Q2")).toBe(false);
  });

  it("lists commands in registration order, refuses a taken name and bad definitions, and undoes a registration", () => {
    const registry = registryWith("stop", "help");
    const undo = registry.register({ name: "usage", description: "tokens", handler: () => "" });
    expect(registry.list().map((command) => command.name)).toEqual(["stop", "help", "usage"]);
    expect(() => registry.register({ name: "stop", description: "again", handler: () => "" })).toThrow(
      /registered twice/,
    );
    undo();
    expect(registry.get("usage")).toBeUndefined();
    expect(() => defineChatCommand({ name: "Bad-Name", description: "x", handler: () => "" })).toThrow(
      /lowercase letters/,
    );
    expect(() => defineChatCommand({ name: "ok", description: " ", handler: () => "" })).toThrow(
      /description/,
    );
  });
});
