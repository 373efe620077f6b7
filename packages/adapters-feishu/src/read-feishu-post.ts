/** A file a message carries, described before any download: what it is and its key on the platform. */
export interface FeishuFileRef {
  kind: "image" | "video";
  key: string;
  /** The message resource API's `type` for this key. */
  type: "image" | "file";
  name?: string;
}

/** What a rich-text post reads as: Markdown-ish text, and every image and video it holds. */
export interface FeishuPostReading {
  text: string;
  files: FeishuFileRef[];
}

type PostElement = {
  tag?: string;
  text?: string;
  href?: string;
  user_id?: string;
  user_name?: string;
  image_key?: string;
  file_key?: string;
  language?: string;
  emoji_type?: string;
  style?: string[];
};

// Styles as Markdown markers, so the model sees what the sender stressed.
const styleMarkers: Record<string, string> = { bold: "**", italic: "*", lineThrough: "~~" };

function styled(text: string, style: string[] | undefined): string {
  if (!text.trim() || !style?.length) return text;
  const markers = style.map((name) => styleMarkers[name] ?? "").join("");
  return `${markers}${text}${[...markers].reverse().join("")}`;
}

function readElement(element: PostElement, files: FeishuFileRef[]): string {
  switch (element.tag) {
    case "text":
      return styled(element.text ?? "", element.style);
    case "a":
      // The link keeps its URL: `[text](href)`, or the bare URL when the text is the URL.
      if (!element.href) return element.text ?? "";
      return element.text && element.text !== element.href
        ? `[${element.text}](${element.href})`
        : element.href;
    case "at":
      // The mention key (`@_user_1`) is resolved with the event's mentions afterwards.
      return element.user_id ?? (element.user_name ? `@${element.user_name}` : "");
    case "img":
      if (element.image_key) files.push({ kind: "image", key: element.image_key, type: "image" });
      return "";
    case "media":
      if (element.file_key) files.push({ kind: "video", key: element.file_key, type: "file" });
      return "";
    case "emotion":
      return element.emoji_type ? `:${element.emoji_type}:` : "";
    case "code_block":
      return `\n\`\`\`${element.language?.toLowerCase() ?? ""}\n${(element.text ?? "").replace(/\n$/, "")}\n\`\`\`\n`;
    case "hr":
      return "\n---\n";
    case "md":
      return element.text ?? "";
    default:
      return element.text ?? "";
  }
}

/**
 * Reads a rich-text post (`{ title, content: [[element, ...], ...] }`, maybe under a locale key): text and
 * links (with their URLs), mentions, emoji, code blocks as fenced code, and every image and video as a file.
 */
export function readFeishuPost(value: unknown): FeishuPostReading {
  const files: FeishuFileRef[] = [];
  if (typeof value !== "object" || value === null) return { text: "", files };
  const post = value as { title?: unknown; content?: unknown };
  const body = Array.isArray(post.content) ? post : (Object.values(value)[0] as typeof post | undefined);
  if (!body || !Array.isArray(body.content)) return { text: "", files };
  const lines = (body.content as unknown[]).map((paragraph) =>
    Array.isArray(paragraph)
      ? paragraph.map((element) => readElement((element ?? {}) as PostElement, files)).join("")
      : "",
  );
  const title = typeof body.title === "string" && body.title ? [body.title] : [];
  const text = [...title, ...lines]
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { text, files };
}
