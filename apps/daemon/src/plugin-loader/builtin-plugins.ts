import type { Plugin } from "@downcity/core";
import { mcpPlugin } from "@downcity/mcp/plugin";
import { memoryPlugin } from "@downcity/memory";
import { skillsPlugin } from "@downcity/skills";
import { tasksPlugin } from "@downcity/tasks";

/** The plug-ins every daemon loads unless their section says `"enabled": false`, in setup order. */
export const builtinPlugins: readonly Plugin[] = [
  mcpPlugin,
  skillsPlugin,
  memoryPlugin,
  tasksPlugin,
] as Plugin[];
