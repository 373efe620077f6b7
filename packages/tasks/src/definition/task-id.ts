import { DowncityError } from "@downcity/core";

declare const taskIdBrand: unique symbol;
/** A task's id: a lowercase slug that is also its folder name under `.downcity/task/`. */
export type TaskId = string & { readonly [taskIdBrand]: true };

/** Slug rule of task ids: lowercase letters, digits and inner dashes, at most 64 characters. */
export const taskIdPattern = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Validates and brands a task id; the error names the field and shows a valid example. */
export function toTaskId(value: unknown, field = "id"): TaskId {
  if (typeof value !== "string" || !taskIdPattern.test(value)) {
    const shown = typeof value === "string" ? `"${value.slice(0, 80)}"` : String(value);
    throw new DowncityError(
      "INVALID_INPUT",
      `${field} ${shown} is not a valid task id: use 1-64 lowercase letters, digits and dashes, starting and ending with a letter or digit (e.g. "daily-report")`,
      { field },
    );
  }
  return value as TaskId;
}
