import type { Feature } from "./feature.js";

// Placeholder until @downcity/mcp is wired in by its own issue; it adds nothing to the daemon.
export const mcpFeature: Feature = {
  name: "mcp",
  async setup() {
    return {};
  },
};
