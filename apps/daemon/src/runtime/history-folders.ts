/** Which folder keeps a context's history, when a plug-in claims it (task runs keep theirs in the run folder). */
export interface HistoryFolders {
  /** Adds a resolver; the first that answers for a context wins. */
  claim(resolver: (contextId: string) => string | undefined): void;
  find(contextId: string): string | undefined;
}

/** Creates the registry of history folders the runtime asks before it picks the default one. */
export function createHistoryFolders(): HistoryFolders {
  const resolvers: Array<(contextId: string) => string | undefined> = [];
  return {
    claim: (resolver) => void resolvers.push(resolver),
    find(contextId) {
      for (const resolver of resolvers) {
        const found = resolver(contextId);
        if (found) return found;
      }
      return undefined;
    },
  };
}
