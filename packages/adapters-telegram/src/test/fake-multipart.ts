/** A file part of a multipart/form-data body. */
export interface FakeUpload {
  filename: string;
  data: Buffer;
}

/**
 * Reads a multipart/form-data body the way the Bot API does: text fields (JSON-encoded objects such
 * as reply_markup are parsed), and file parts put where an `attach://<name>` field points at them.
 */
export function parseMultipart(body: Buffer, contentType: string): Record<string, unknown> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) throw new Error("multipart body without a boundary");
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const fields: Record<string, unknown> = {};
  const files = new Map<string, FakeUpload>();
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const next = body.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    // Each part: CRLF, headers, a blank line, the content, CRLF before the next delimiter.
    const part = body.subarray(start + delimiter.length + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    const headers = part.subarray(0, split).toString("utf8");
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(headers)?.[1];
    const filename = /filename=(?:"([^"]*)"|([^;\r\n]*))/i.exec(headers);
    if (name !== undefined) {
      if (filename)
        files.set(name, { filename: filename[1] ?? filename[2] ?? "", data: Buffer.from(content) });
      else fields[name] = fieldValue(content.toString("utf8"));
    }
    start = next;
  }
  for (const [key, value] of Object.entries(fields))
    if (typeof value === "string" && value.startsWith("attach://")) {
      const upload = files.get(value.slice("attach://".length));
      if (upload) fields[key] = upload;
    }
  return fields;
}

// Objects and arrays arrive JSON-encoded; numbers stay strings, as Telegram reads them either way.
function fieldValue(text: string): unknown {
  if (!/^[[{]/.test(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
