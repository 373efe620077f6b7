import type { IncomingMessage } from "node:http";
import { DowncityError } from "@downcity/core";

/** Reads a JSON request body of at most `limit` bytes (`tooLarge` past it); a bad type or bad JSON is an INVALID_INPUT error. */
export async function readJsonBody(
  request: IncomingMessage,
  limit: number,
): Promise<{ tooLarge: true } | { tooLarge: false; value: unknown }> {
  const type = request.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new DowncityError("INVALID_INPUT", "Send the body as JSON with Content-Type: application/json", {
      field: "content-type",
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) return { tooLarge: true };
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return { tooLarge: false, value: {} };
  try {
    return { tooLarge: false, value: JSON.parse(text) as unknown };
  } catch {
    throw new DowncityError("INVALID_INPUT", "The body is not valid JSON", { field: "body" });
  }
}
