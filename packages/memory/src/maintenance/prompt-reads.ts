import type { MemoryDocuments } from "@downcity/core";

/** Runs whose prompt read is kept; past this, the run that read longest ago is forgotten. */
const keptRuns = 1000;

/**
 * A context's memory documents as a run's prompt read them, kept by the run's request id until
 * its end hands them to maintenance, so the check after every run does not read them again.
 */
export interface PromptReads {
  /** Keeps what the prompt of run `requestId` read (a later read of the same run replaces it). */
  put(requestId: string, documents: MemoryDocuments): void;
  /** What the prompt of run `requestId` read, once: undefined when it read nothing or was taken. */
  take(requestId: string): MemoryDocuments | undefined;
}

/** Creates the hand-over of prompt reads to maintenance (one per memory plug-in). */
export function createPromptReads(): PromptReads {
  const reads = new Map<string, MemoryDocuments>();
  return {
    put(requestId, documents) {
      reads.delete(requestId);
      reads.set(requestId, documents);
      if (reads.size > keptRuns) reads.delete(reads.keys().next().value as string);
    },
    take(requestId) {
      const documents = reads.get(requestId);
      reads.delete(requestId);
      return documents;
    },
  };
}
