/**
 * The complete public surface of @downcity/memory: long-term memory with provenance (background
 * extraction, compression with backups, forget with tombstones), its prompt provider, agent tools
 * and service. Nothing else is public.
 */
export type { CompressionResult } from "./compress-context-memory.js";
export {
  type ContextMemoryStatus,
  createMemory,
  type Memory,
  type MemoryOptions,
} from "./create-memory.js";
export type { ForgetInput } from "./forget-entries.js";
export {
  type MemoryEntry,
  type MemoryKind,
  memoryEntryId,
  memoryEntrySchema,
  memoryKinds,
} from "./memory-entry.js";
export {
  type ContextMemoryFiles,
  contextMemoryFiles,
  type ProfileFiles,
  profileFiles,
} from "./memory-files.js";
export type { MaintenanceResult } from "./memory-maintainer.js";
export { type MemoryMeta, memoryMetaSchema } from "./memory-meta.js";
export { createMemoryPromptProvider, type MemoryPromptProviderOptions } from "./memory-prompt-provider.js";
export { createMemoryService } from "./memory-service.js";
export { createMemoryTools, memoryRememberInputSchema, memorySearchInputSchema } from "./memory-tools.js";
export {
  type PrimaryDocument,
  parsePrimaryMarkdown,
  renderPrimaryMarkdown,
} from "./primary-markdown.js";
export type { RememberInput } from "./remember-entry.js";
export type { MemorySearchHit } from "./search-entries.js";
