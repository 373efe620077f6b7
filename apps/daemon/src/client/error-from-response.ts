import { DowncityError, isDowncityErrorCode } from "@downcity/core/primitives";

/** A daemon's non-2xx answer as a DowncityError with its code, message and field; an unknown code becomes INTERNAL. */
export function errorFromResponse(response: { status: number; text: string }): DowncityError {
  let body: { error?: { code?: string; message?: string; field?: string } } = {};
  try {
    body = JSON.parse(response.text) as typeof body;
  } catch {
    // Not JSON: report the status line.
  }
  const sent = body.error?.code;
  const code = isDowncityErrorCode(sent) ? sent : "INTERNAL";
  return new DowncityError(code, body.error?.message ?? `The daemon answered HTTP ${response.status}`, {
    ...(body.error?.field ? { field: body.error.field } : {}),
  });
}
