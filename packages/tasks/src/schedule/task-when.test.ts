import { describe, expect, it } from "vitest";
import { latestFireBetween, nextFireAfter, parseWhen } from "./task-when.js";

const fires = (when: string, from: string, timezone: string, count: number) => {
  const schedule = parseWhen(when);
  const out: string[] = [];
  let at = new Date(from);
  for (let index = 0; index < count; index++) {
    const next = nextFireAfter(schedule, at, timezone);
    if (!next) break;
    out.push(next.toISOString());
    at = next;
  }
  return out;
};

describe("parseWhen", () => {
  it("accepts 5- and 6-field cron, aliases, @manual and one-shot times", () => {
    expect(parseWhen("0 9 * * 1-5")).toEqual({ kind: "cron", expression: "0 9 * * 1-5" });
    expect(parseWhen("*/30 0 9 * * *").kind).toBe("cron");
    expect(parseWhen("@daily").kind).toBe("cron");
    expect(parseWhen("@hourly").kind).toBe("cron");
    expect(parseWhen("@weekly").kind).toBe("cron");
    expect(parseWhen("@manual")).toEqual({ kind: "manual" });
    expect(parseWhen("time:2030-01-31T09:00:00+01:00")).toEqual({
      kind: "once",
      at: new Date("2030-01-31T08:00:00Z"),
    });
  });

  it("rejects bad values with a message that quotes them and says what is wrong", () => {
    expect(() => parseWhen("61 * * * *")).toThrow(
      /when "61 \* \* \* \*" is not a valid cron expression: .*61/,
    );
    expect(() => parseWhen("* * *")).toThrow(/when "\* \* \*" has 3 fields; a cron expression needs 5/);
    expect(() => parseWhen("1 2 3 4 5 6 7")).toThrow(/has 7 fields/);
    expect(() => parseWhen("@sometimes")).toThrow(/"@sometimes" is not a known schedule alias/);
    expect(() => parseWhen("time:2030-01-31T09:00:00")).toThrow(/with an offset/);
    expect(() => parseWhen("time:tomorrow")).toThrow(/"time:tomorrow" is not a valid one-shot time/);
  });
});

describe("nextFireAfter", () => {
  it("reads the schedule in the task's time zone", () => {
    expect(fires("0 9 * * *", "2025-06-01T00:00:00Z", "Asia/Tokyo", 1)).toEqual(["2025-06-02T00:00:00.000Z"]);
    expect(fires("0 9 * * *", "2025-06-01T00:00:00Z", "America/New_York", 1)).toEqual([
      "2025-06-01T13:00:00.000Z",
    ]);
    expect(fires("0 9 * * *", "2025-06-01T00:00:00Z", "UTC", 1)).toEqual(["2025-06-01T09:00:00.000Z"]);
  });

  it("neither skips nor doubles a daily task across DST changes", () => {
    // Spring forward (2025-03-09): 02:30 does not exist in New York; the task still fires that day.
    expect(fires("30 2 * * *", "2025-03-08T12:00:00Z", "America/New_York", 3)).toEqual([
      "2025-03-09T07:30:00.000Z",
      "2025-03-10T06:30:00.000Z",
      "2025-03-11T06:30:00.000Z",
    ]);
    // Fall back (2025-11-02): 01:30 happens twice; the task fires once.
    expect(fires("30 1 * * *", "2025-11-01T12:00:00Z", "America/New_York", 3)).toEqual([
      "2025-11-02T05:30:00.000Z",
      "2025-11-03T06:30:00.000Z",
      "2025-11-04T06:30:00.000Z",
    ]);
    // Europe: 09:00 local stays 09:00 local across the March change.
    expect(fires("0 9 * * *", "2025-03-29T12:00:00Z", "Europe/Berlin", 2)).toEqual([
      "2025-03-30T07:00:00.000Z",
      "2025-03-31T07:00:00.000Z",
    ]);
  });

  it("has no next fire for manual tasks or past one-shots", () => {
    expect(nextFireAfter(parseWhen("@manual"), new Date(), "UTC")).toBeUndefined();
    expect(nextFireAfter(parseWhen("time:2020-01-01T00:00:00Z"), new Date(), "UTC")).toBeUndefined();
  });
});

describe("latestFireBetween", () => {
  it("finds the newest fire missed in a window, or none", () => {
    const daily = parseWhen("0 9 * * *");
    expect(
      latestFireBetween(daily, new Date("2025-06-01T10:00:00Z"), new Date("2025-06-04T08:00:00Z"), "UTC"),
    ).toEqual(new Date("2025-06-03T09:00:00Z"));
    expect(
      latestFireBetween(daily, new Date("2025-06-01T10:00:00Z"), new Date("2025-06-02T08:00:00Z"), "UTC"),
    ).toBeUndefined();
  });
});
