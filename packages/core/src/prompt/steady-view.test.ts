import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { expect, it } from "vitest";
import type { HistoryMessage } from "../history/history-message.js";
import { silentLogger } from "../logger/logger.js";
import { createHistoryStore } from "../store/file/file-history.js";
import { createHistoryWindow } from "./history-window.js";
import { createSteadyViews } from "./steady-view.js";

const temp = useTempDir("dc-steady-view-", "each");

const message = (id: string, role: "user" | "assistant"): HistoryMessage => ({
  id,
  role,
  parts: [{ type: "text", text: `message ${id}` }],
  metadata: { createdAt: new Date(0).toISOString() },
});

it("when compaction fails, the model's view starts at the same message for several turns, then moves a step", async () => {
  const store = createHistoryStore({ dir: join(temp.path, "messages") });
  // No model: every compaction fails, so only the cut keeps the view within the window.
  const window = createHistoryWindow({
    history: () => store,
    maxInputTokens: 1_000_000,
    logger: silentLogger,
  });
  const starts: string[] = [];
  for (let turn = 0; turn < 24; turn++) {
    await store.append([message(`u${turn}`, "user"), message(`a${turn}`, "assistant")]);
    const view = await window.build("c", 0, 12, new AbortController().signal);
    expect(view.ids.size).toBeLessThanOrEqual(12);
    expect(view.ids.has(`a${turn}`)).toBe(true);
    starts.push([...view.ids][0] as string);
  }
  // Cut by one message per turn, the start would have changed on every turn from turn 6 on.
  const changes = starts.slice(6).filter((start, index, all) => index > 0 && start !== all[index - 1]).length;
  expect(changes).toBeGreaterThan(0);
  expect(changes).toBeLessThanOrEqual(9);
});

it("a cut moves forward only when the view from it no longer fits, and forgets contexts beyond its bound", async () => {
  const views = createSteadyViews();
  const tail = Array.from({ length: 8 }, (_, index) =>
    message(`m${index}`, index % 2 ? "assistant" : "user"),
  );
  const fitsSix = async (view: HistoryMessage[]) => view.length <= 6;
  expect((await views.cut("c", tail, fitsSix)).map((entry) => entry.id)).toEqual([
    "m2",
    "m3",
    "m4",
    "m5",
    "m6",
    "m7",
  ]);
  const longer = [...tail.slice(2), message("m8", "user")];
  expect((await views.cut("c", longer, async (view) => view.length <= 7))[0]?.id).toBe("m2");
  expect((await views.cut("c", longer, fitsSix))[0]?.id).toBe("m4");
  views.forget("c");
  expect((await views.cut("c", longer, async () => true))[0]?.id).toBe("m2");
  expect((await views.cut("c", longer, fitsSix))[0]?.id).toBe("m4");
  for (let index = 0; index < 1001; index++) await views.cut(`other${index}`, tail, fitsSix);
  // "c" was cut longest ago and is forgotten: its next cut starts afresh, not at m4.
  expect((await views.cut("c", longer, async () => true))[0]?.id).toBe("m2");
});
