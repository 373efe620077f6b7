import { DowncityError } from "@downcity/core";
import { CronExpressionParser } from "cron-parser";

/** A parsed `when`: a cron schedule, manual only, or a one-shot instant. */
export type TaskWhen = { kind: "cron"; expression: string } | { kind: "manual" } | { kind: "once"; at: Date };

const aliases = new Set(["@hourly", "@daily", "@weekly", "@monthly", "@yearly"]);
const isoWithOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const whenHelp =
  'Use a 5-field cron ("minute hour day month weekday", e.g. "0 9 * * 1-5"), 6 fields with seconds first, @hourly, @daily, @weekly, @manual, or time:<ISO 8601 with offset> (e.g. "time:2030-01-31T09:00:00+01:00").';

/** The machine's IANA time zone, the default of a task's `timezone`. */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** Checks an IANA time zone name; the error names the field and the fix. */
export function assertTimeZone(timezone: string, field = "timezone"): void {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    throw new DowncityError(
      "INVALID_INPUT",
      `${field} "${timezone}" is not an IANA time zone; use a name such as "Europe/Berlin" or "UTC"`,
      { field },
    );
  }
}

/** Parses and validates a `when` value; a bad value is rejected with a message quoting it and saying what is wrong. */
export function parseWhen(value: string, field = "when"): TaskWhen {
  const when = value.trim();
  if (when === "@manual") return { kind: "manual" };
  if (when.startsWith("time:")) {
    const iso = when.slice("time:".length).trim();
    const at = new Date(iso);
    if (!isoWithOffset.test(iso) || Number.isNaN(at.getTime())) {
      throw new DowncityError(
        "INVALID_INPUT",
        `${field} "${value}" is not a valid one-shot time: write time:<ISO 8601 date-time with an offset>, e.g. "time:2030-01-31T09:00:00+01:00" or "time:2030-01-31T08:00:00Z"`,
        { field },
      );
    }
    return { kind: "once", at };
  }
  if (when.startsWith("@") && !aliases.has(when)) {
    throw new DowncityError(
      "INVALID_INPUT",
      `${field} "${value}" is not a known schedule alias. ${whenHelp}`,
      {
        field,
      },
    );
  }
  if (!when.startsWith("@")) {
    const fields = when.split(/\s+/).filter(Boolean).length;
    if (fields !== 5 && fields !== 6) {
      throw new DowncityError(
        "INVALID_INPUT",
        `${field} "${value}" has ${fields} field${fields === 1 ? "" : "s"}; a cron expression needs 5 (minute hour day month weekday) or 6 (seconds first). ${whenHelp}`,
        { field },
      );
    }
  }
  try {
    CronExpressionParser.parse(when, { strict: false }).next();
  } catch (error) {
    throw new DowncityError(
      "INVALID_INPUT",
      `${field} "${value}" is not a valid cron expression: ${error instanceof Error ? error.message : String(error)}. ${whenHelp}`,
      { field, cause: error },
    );
  }
  return { kind: "cron", expression: when };
}

/** The first fire strictly after `after`, in `timezone`; undefined for manual tasks and past one-shots. */
export function nextFireAfter(when: TaskWhen, after: Date, timezone: string): Date | undefined {
  if (when.kind === "manual") return undefined;
  if (when.kind === "once") return when.at.getTime() > after.getTime() ? when.at : undefined;
  const iterator = CronExpressionParser.parse(when.expression, { currentDate: after, tz: timezone });
  return iterator.next().toDate();
}

/**
 * The newest fire in `(since, until]`, or undefined when none fell in that window; used to catch up
 * on a fire missed while the scheduler was down.
 */
export function latestFireBetween(
  when: TaskWhen,
  since: Date,
  until: Date,
  timezone: string,
): Date | undefined {
  if (when.kind === "manual") return undefined;
  if (when.kind === "once") {
    const at = when.at.getTime();
    return at > since.getTime() && at <= until.getTime() ? when.at : undefined;
  }
  const first = nextFireAfter(when, since, timezone);
  if (!first || first.getTime() > until.getTime()) return undefined;
  const previous = CronExpressionParser.parse(when.expression, {
    currentDate: new Date(until.getTime() + 1),
    tz: timezone,
  })
    .prev()
    .toDate();
  return previous.getTime() > first.getTime() && previous.getTime() <= until.getTime() ? previous : first;
}
