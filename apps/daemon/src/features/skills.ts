import type { Feature } from "./feature.js";

// Placeholder until @downcity/skills is wired in by its own issue; it adds nothing to the daemon.
export const skillsFeature: Feature = {
  name: "skills",
  async setup() {
    return {};
  },
};
