import { describe, expect, it } from "vitest";
import { createReplyKeys, parseReplyKey } from "./reply-keys.js";

describe("reply keys", () => {
  it("key chat_send by the step under way and the final text by the last finished step, counting parts per step", () => {
    const keys = createReplyKeys("evt-1");
    keys.continueRun({ run: "req-1", finishedSteps: 0, used: [] });
    expect(keys.next("chat_send").key).toBe("req-1:0:0");
    expect(keys.next("chat_send").key).toBe("req-1:0:1");
    keys.stepFinished();
    keys.stepFinished();
    expect(keys.next("final-text")).toEqual({ key: "req-1:1:0", step: 1, part: 0 });
    expect(keys.next("final-text").key).toBe("req-1:1:1");
  });

  it("continue after an earlier attempt's steps without handing out its keys again", () => {
    const keys = createReplyKeys("evt-1");
    keys.continueRun({ run: "req-1", finishedSteps: 2, used: ["req-1:1:0", "req-1:0:0", "other:1:5"] });
    // A notice after the restart belongs to step 1, whose part 0 went out before the crash.
    expect(keys.next("final-text").key).toBe("req-1:1:1");
    expect(keys.next("chat_send").key).toBe("req-1:2:0");
  });

  it("name the trigger message until the run is journaled", () => {
    expect(createReplyKeys("tg:42").next("final-text").key).toBe("tg:42:0:0");
    expect(parseReplyKey("req-1:3:2", "req-1")).toEqual({ step: 3, part: 2 });
    expect(parseReplyKey("req-10:3:2", "req-1")).toBeUndefined();
  });
});
