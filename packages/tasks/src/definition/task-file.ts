import { DowncityError, splitFrontMatter } from "@downcity/core";
import { isMap, parseDocument, stringify } from "yaml";
import { assertTimeZone, machineTimeZone, parseWhen } from "../schedule/task-when.js";
import { type TaskDefinition, type TaskFileProblem, taskFrontMatterSchema } from "./task-definition.js";
import type { TaskId } from "./task-id.js";

/** The front matter fields a caller may write. */
export interface TaskFileFields {
  title: string;
  when: string;
  timezone?: string;
  notify?: string;
  status?: "enabled" | "paused" | "done";
  catchUp?: "skip" | "once";
}

/** Parses a task.md into a definition, or into the problems that make it unusable. */
export function parseTaskFile(
  text: string,
  options: { id: TaskId; path: string; defaultTimezone?: string },
): { task: TaskDefinition; problems?: undefined } | { task?: undefined; problems: TaskFileProblem[] } {
  const { path } = options;
  const problem = (field: string, reason: string) => ({ problems: [{ path, field, reason }] });
  const split = splitFrontMatter(text);
  if (!split) {
    return problem(
      "front matter",
      "task.md must start with a YAML front matter block between two --- lines (title, when, ...) followed by the instruction",
    );
  }
  const document = parseDocument(split.frontMatter);
  if (document.errors.length > 0) {
    const first = document.errors[0];
    return problem(
      "front matter",
      `invalid YAML: ${first?.message.split("\n")[0]}. Quote values that start with @ or * (when: "@daily", when: "*/5 * * * *")`,
    );
  }
  const parsed = taskFrontMatterSchema.safeParse(document.toJS() ?? {});
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((issue) => ({
        path,
        field: issue.path.map(String).join(".") || "front matter",
        reason: issue.message,
      })),
    };
  }
  const fields = parsed.data;
  const problems: TaskFileProblem[] = [];
  let schedule: TaskDefinition["schedule"] | undefined;
  try {
    schedule = parseWhen(fields.when);
  } catch (error) {
    problems.push({ path, field: "when", reason: (error as Error).message });
  }
  if (fields.timezone !== undefined) {
    try {
      assertTimeZone(fields.timezone);
    } catch (error) {
      problems.push({ path, field: "timezone", reason: (error as Error).message });
    }
  }
  const body = split.body.trim();
  if (!body)
    problems.push({
      path,
      field: "body",
      reason: "write the instruction the agent runs below the front matter",
    });
  if (problems.length > 0 || !schedule) return { problems };
  return {
    task: {
      id: options.id,
      title: fields.title,
      when: fields.when,
      schedule,
      timezone: fields.timezone ?? options.defaultTimezone ?? machineTimeZone(),
      timezoneExplicit: fields.timezone !== undefined,
      ...(fields.notify !== undefined ? { notify: fields.notify } : {}),
      status: fields.status,
      catchUp: fields.catchUp,
      body,
      path,
    },
  };
}

/** Renders a new task.md from its fields and instruction. */
export function renderTaskFile(fields: TaskFileFields, body: string): string {
  const ordered: Record<string, string> = { title: fields.title, when: fields.when };
  if (fields.timezone !== undefined) ordered.timezone = fields.timezone;
  if (fields.notify !== undefined) ordered.notify = fields.notify;
  ordered.status = fields.status ?? "enabled";
  ordered.catchUp = fields.catchUp ?? "once";
  return `---\n${stringify(ordered).trimEnd()}\n---\n\n${body.trim()}\n`;
}

/**
 * Rewrites some front matter fields (and optionally the body) of an existing task.md, keeping
 * comments, key order and unknown keys; `null` removes a field.
 */
export function editTaskFile(
  text: string,
  changes: Record<string, string | null | undefined>,
  body?: string,
): string {
  const split = splitFrontMatter(text);
  if (!split) {
    throw new DowncityError(
      "INVALID_INPUT",
      "task.md has no front matter block to edit; fix or recreate it",
      {
        field: "front matter",
      },
    );
  }
  const document = parseDocument(split.frontMatter);
  if (document.errors.length > 0 || !isMap(document.contents)) {
    throw new DowncityError(
      "INVALID_INPUT",
      "task.md's front matter is not valid YAML; fix it by hand first",
      {
        field: "front matter",
      },
    );
  }
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) document.delete(key);
    else document.set(key, value);
  }
  const newBody =
    body !== undefined ? `\n${body.trim()}\n` : split.body.startsWith("\n") ? split.body : `\n${split.body}`;
  return `---\n${document.toString().trimEnd()}\n---\n${newBody}`;
}
