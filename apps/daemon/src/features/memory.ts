import type { Feature } from "./feature.js";

// Placeholder until @downcity/memory is wired in by its own issue; it adds nothing to the daemon.
export const memoryFeature: Feature = {
  name: "memory",
  async setup() {
    return {};
  },
};
