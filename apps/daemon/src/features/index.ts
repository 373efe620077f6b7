import type { Feature } from "./feature.js";
import { mcpFeature } from "./mcp.js";
import { memoryFeature } from "./memory.js";
import { skillsFeature } from "./skills.js";
import { tasksFeature } from "./tasks.js";

/** Every feature the daemon wires in, in setup order. */
export const features: Feature[] = [mcpFeature, skillsFeature, memoryFeature, tasksFeature];
