import { InvalidArgumentError } from "commander";

/** Parses a finite number argument; commander reports a failure as a usage error (exit 2). */
export function parseNumberValue(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number))
    throw new InvalidArgumentError(`"${value}" is not a number.`);
  return number;
}

/** Parses a non-negative integer argument (`--last`, `--port`, `--grace`). */
export function parseIntegerValue(value: string): number {
  const number = parseNumberValue(value);
  if (!Number.isInteger(number) || number < 0) {
    throw new InvalidArgumentError(`"${value}" is not a non-negative integer.`);
  }
  return number;
}

/** Parses a positive integer argument (`--last`): 0 would ask for nothing, so it is a usage error. */
export function parsePositiveIntegerValue(value: string): number {
  const number = parseIntegerValue(value);
  if (number < 1) throw new InvalidArgumentError(`"${value}" is not a positive integer.`);
  return number;
}

/** Parses a JSON argument (`--json-input`, object- or array-valued options). */
export function parseJsonValue(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    throw new InvalidArgumentError(`not valid JSON (${(error as Error).message}).`);
  }
}

/** Parses `--json-input`, which must be a JSON object. */
export function parseJsonObjectValue(value: string): Record<string, unknown> {
  const parsed = parseJsonValue(value);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"shell_id":"sh_1"}\'.');
  }
  return parsed as Record<string, unknown>;
}
