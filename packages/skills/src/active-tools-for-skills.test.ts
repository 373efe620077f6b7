import { describe, expect, it } from "vitest";
import { activeToolsForSkills, mapAllowedTool, shellToolNames } from "./active-tools-for-skills.js";

describe("activeToolsForSkills", () => {
  it("does not narrow when no skill declares allowed-tools", () => {
    expect(activeToolsForSkills([])).toBeUndefined();
    expect(activeToolsForSkills([{}, { allowedTools: undefined }])).toBeUndefined();
  });

  it("maps Claude-style names to shell tools, passes mcp__ and unknown names through, keeps chat and skill tools", () => {
    expect(mapAllowedTool("Bash(git status:*)")).toEqual([...shellToolNames]);
    expect(mapAllowedTool("Grep")).toEqual([...shellToolNames]);
    expect(mapAllowedTool("mcp__github__search_issues")).toEqual(["mcp__github__search_issues"]);
    expect(mapAllowedTool("WebFetch")).toEqual(["WebFetch"]);
    const tools = activeToolsForSkills([
      { allowedTools: ["Read"] },
      { allowedTools: ["mcp__db__query"] },
      {},
    ]);
    expect(tools).toEqual([
      "chat_send",
      "chat_load_history",
      "skill_load",
      "skill_unload",
      ...shellToolNames,
      "mcp__db__query",
    ]);
  });

  it("leaves only chat and skill tools for an empty declaration", () => {
    expect(activeToolsForSkills([{ allowedTools: [] }])).toEqual([
      "chat_send",
      "chat_load_history",
      "skill_load",
      "skill_unload",
    ]);
  });
});
