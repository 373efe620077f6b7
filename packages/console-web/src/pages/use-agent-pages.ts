import { useEffect, useState } from "preact/hooks";

/** The module of an agent's pages (chats, runs, channels, …), loaded on first use. */
export type AgentPageModule = typeof import("./agent-page.js");

/**
 * Loads the agent pages' module once an agent is shown: the first screen (the agents list) needs none
 * of it. A failed load (the console restarting, a dropped connection) is tried again with a growing
 * pause and reported in `problem`, never left as a page that says "Loading…" for ever.
 */
export function useAgentPages(wanted: boolean): { pages?: AgentPageModule; problem?: string } {
  const [pages, setPages] = useState<AgentPageModule | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!wanted || pages) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = (attempt: number) => {
      import("./agent-page.js").then(
        (loaded) => {
          if (!stopped) setPages(loaded);
        },
        (error: unknown) => {
          if (stopped) return;
          const reason = error instanceof Error ? error.message : String(error);
          setProblem(`Could not load this page (${reason}); trying again.`);
          timer = setTimeout(() => load(attempt + 1), Math.min(1000 * 2 ** attempt, 10_000));
        },
      );
    };
    load(0);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [wanted, pages]);
  return { ...(pages ? { pages } : {}), ...(problem ? { problem } : {}) };
}
