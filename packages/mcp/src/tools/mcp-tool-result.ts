import type { Tool } from "ai";

type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/** One content block of an MCP tool result (text, image, audio, resource, resource link). */
export type McpContentBlock = { type: string; [key: string]: unknown };

/** What an MCP tool call returns to the run: the server's content, structured content and error flag. */
export interface McpToolResult {
  content: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool result that tells the model what went wrong instead of crashing the run. */
export function mcpErrorResult(message: string): McpToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** Normalises what `client.callTool` resolved with (including the legacy `toolResult` shape). */
export function toMcpToolResult(raw: Record<string, unknown>): McpToolResult {
  if (!Array.isArray(raw.content) && "toolResult" in raw) {
    return { content: [{ type: "text", text: JSON.stringify(raw.toolResult) }] };
  }
  const result: McpToolResult = {
    content: Array.isArray(raw.content) ? (raw.content as McpContentBlock[]) : [],
  };
  if (raw.structuredContent && typeof raw.structuredContent === "object") {
    result.structuredContent = raw.structuredContent as Record<string, unknown>;
  }
  if (raw.isError === true) result.isError = true;
  return result;
}

type ContentPart = Extract<ToolResultOutput, { type: "content" }>["value"][number];

/** Maps an MCP result to what the model reads: error text, plain text, or text and media parts. */
export function mcpResultToModelOutput(result: McpToolResult): ToolResultOutput {
  const parts = result.content.map(contentPart);
  if (parts.length === 0 && result.structuredContent) {
    return result.isError
      ? { type: "error-json", value: result.structuredContent as never }
      : { type: "json", value: result.structuredContent as never };
  }
  const texts = parts.filter((part): part is Extract<ContentPart, { type: "text" }> => part.type === "text");
  if (result.isError) {
    return { type: "error-text", value: texts.map((part) => part.text).join("\n") || "The tool failed." };
  }
  if (texts.length === parts.length)
    return { type: "text", value: texts.map((part) => part.text).join("\n") };
  return { type: "content", value: parts };
}

function contentPart(block: McpContentBlock): ContentPart {
  const text = (value: string): ContentPart => ({ type: "text", text: value });
  switch (block.type) {
    case "text":
      return text(String(block.text ?? ""));
    case "image":
      return { type: "image-data", data: String(block.data), mediaType: String(block.mimeType) };
    case "audio":
      return { type: "file-data", data: String(block.data), mediaType: String(block.mimeType) };
    case "resource": {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === "string")
        return text(`Resource ${String(resource.uri)}:\n${resource.text}`);
      if (typeof resource.blob === "string") {
        return {
          type: "file-data",
          data: resource.blob,
          mediaType: String(resource.mimeType ?? "application/octet-stream"),
        };
      }
      return text(`Resource ${String(resource.uri)}`);
    }
    case "resource_link":
      return text(`Resource link: ${String(block.name ?? "")} ${String(block.uri)}`.trim());
    default:
      return text(JSON.stringify(block));
  }
}
