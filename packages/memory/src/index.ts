/**
 * The complete public surface of @downcity/memory: long-term memory with provenance (background
 * extraction, compression with backups, forget with tombstones), its prompt provider, agent tools
 * and service. Nothing else is public.
 */

export {
  type ContextMemoryStatus,
  createMemory,
  type Memory,
  type MemoryOptions,
} from "./create-memory.js";
export type { ForgetInput } from "./entries/forget-entries.js";
export type { RememberInput } from "./entries/remember-entry.js";
export type { MemorySearchHit } from "./entries/search-entries.js";
export type { CompressionResult } from "./maintenance/compress-context-memory.js";
export type { MaintenanceOptions, MaintenanceResult } from "./maintenance/memory-maintainer.js";
export {
  createMemoryPromptProvider,
  type MemoryPromptProviderOptions,
} from "./prompt/memory-prompt-provider.js";
export {
  type MemoryEntry,
  type MemoryKind,
  memoryEntryId,
  memoryEntrySchema,
  memoryKinds,
} from "./store/memory-entry.js";
export {
  type ContextMemoryFiles,
  contextMemoryFiles,
  type ProfileFiles,
  profileFiles,
} from "./store/memory-files.js";
export { type MemoryMeta, memoryMetaSchema } from "./store/memory-meta.js";
export {
  type PrimaryDocument,
  parsePrimaryMarkdown,
  renderPrimaryMarkdown,
} from "./store/primary-markdown.js";
export { memoryConfigSchema, memoryPlugin } from "./surface/memory-plugin.js";
export { createMemoryService } from "./surface/memory-service.js";
export {
  createMemoryTools,
  memoryRememberInputSchema,
  memorySearchInputSchema,
} from "./surface/memory-tools.js";
