import { DowncityError, type TaskStore, toContextId } from "@downcity/core";
import type { TaskFileProblem, TaskStatus } from "../definition/task-definition.js";
import { editTaskFile, parseTaskFile, renderTaskFile } from "../definition/task-file.js";
import { type TaskId, toTaskId } from "../definition/task-id.js";
import type { TaskCreateInput, TaskUpdateInput } from "../definition/task-inputs.js";
import { assertTimeZone, parseWhen } from "../schedule/task-when.js";
import type { TaskClock } from "./task-clock.js";

/** Validated writes of task files: create, update, status changes and removal. */
export interface TaskFileEditor {
  create(input: TaskCreateInput, callerContextId?: string): Promise<TaskId>;
  /** `currentStatus` lets a done one-shot given a new time be scheduled again. */
  update(input: TaskUpdateInput, currentStatus?: TaskStatus): Promise<TaskId>;
  setStatus(id: string, status: "enabled" | "paused"): Promise<TaskId>;
  remove(id: string): Promise<TaskId>;
}

/** Creates the editor that validates task input (quoting bad cron back) before anything is written. */
export function createTaskFileEditor(options: {
  /** Where a task lives (its file, or its row), for problems. */
  pathOf: (id: string) => string;
  store: TaskStore;
  clock: TaskClock;
  defaultTimezone: string;
}): TaskFileEditor {
  const { pathOf, store, clock, defaultTimezone } = options;

  const checkFields = (fields: {
    when?: string | undefined;
    timezone?: string | undefined;
    notify?: string | undefined;
  }) => {
    if (fields.timezone !== undefined) assertTimeZone(fields.timezone);
    if (fields.notify !== undefined) toContextId(fields.notify, "notify");
    if (fields.when !== undefined) {
      const schedule = parseWhen(fields.when);
      if (schedule.kind === "once" && schedule.at.getTime() <= clock.now().getTime()) {
        throw new DowncityError(
          "INVALID_INPUT",
          `when "${fields.when}" is in the past (now is ${clock.now().toISOString()}); give a future time`,
          { field: "when" },
        );
      }
    }
  };

  const writeChecked = async (id: TaskId, text: string, create = false) => {
    const parsed = parseTaskFile(text, { id, path: pathOf(id), defaultTimezone });
    if (parsed.problems) {
      const first = parsed.problems[0] as TaskFileProblem;
      throw new DowncityError("INVALID_INPUT", `${first.field}: ${first.reason}`, { field: first.field });
    }
    if (!(await store.write(id, text, { create }))) throw taken(id);
    return id;
  };

  const edit = async (rawId: string, changes: Record<string, string | null | undefined>, body?: string) => {
    const id = toTaskId(rawId);
    const text = await store.read(id);
    if (text === undefined) {
      throw new DowncityError("NOT_FOUND", `No task "${id}"; create it with task create`, { field: "id" });
    }
    return writeChecked(id, editTaskFile(text, changes, body));
  };

  return {
    async create(input, callerContextId) {
      const id = toTaskId(input.id);
      checkFields(input);
      if ((await store.read(id)) !== undefined) throw taken(id);
      // A task run's context is gone once the run ends, so it is never a default notify target.
      const caller =
        callerContextId && !callerContextId.startsWith("task-run:") ? callerContextId : undefined;
      const notify = input.notify ?? caller;
      const text = renderTaskFile(
        {
          title: input.title,
          when: input.when.trim(),
          ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
          ...(notify !== undefined ? { notify } : {}),
          ...(input.status !== undefined ? { status: input.status } : {}),
          ...(input.catchUp !== undefined ? { catchUp: input.catchUp } : {}),
        },
        input.body,
      );
      return writeChecked(id, text, true);
    },
    async update(input, currentStatus) {
      checkFields(input);
      const status =
        input.status ?? (input.when !== undefined && currentStatus === "done" ? "enabled" : undefined);
      return edit(
        input.id,
        {
          title: input.title,
          when: input.when?.trim(),
          timezone: input.timezone,
          notify: input.notify,
          catchUp: input.catchUp,
          status,
        },
        input.body,
      );
    },
    setStatus: (id, status) => edit(id, { status }),
    async remove(rawId) {
      const id = toTaskId(rawId);
      if ((await store.read(id)) === undefined) {
        throw new DowncityError("NOT_FOUND", `No task "${id}"; run task list to see the tasks`, {
          field: "id",
        });
      }
      await store.remove(id);
      return id;
    },
  };
}

const taken = (id: TaskId) =>
  new DowncityError("CONFLICT", `Task "${id}" already exists; change it with task update`, { field: "id" });
