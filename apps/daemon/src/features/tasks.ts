import type { Feature } from "./feature.js";

// Placeholder until @downcity/tasks is wired in by its own issue; it adds nothing to the daemon.
export const tasksFeature: Feature = {
  name: "tasks",
  async setup() {
    return {};
  },
};
