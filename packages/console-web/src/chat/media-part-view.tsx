import type { JSX } from "preact";
import type { MessagePart } from "../api/console-types.js";

const mediaFolder = ".downcity/media/";
const inlineImages = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** The console URL of a history file reference, or undefined when it is not under `.downcity/media/`. */
export function mediaHref(agent: string, path: string | undefined): string | undefined {
  if (!path?.startsWith(mediaFolder)) return undefined;
  return `/console/api/media?${new URLSearchParams({ agent, path }).toString()}`;
}

function sizeText(bytes: number | undefined): string {
  if (bytes === undefined) return "";
  if (bytes < 1024) return `, ${bytes} B`;
  if (bytes < 1024 * 1024) return `, ${(bytes / 1024).toFixed(1)} KB`;
  return `, ${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A file someone sent: an image shown in the chat (opening in a tab), anything else a download link. */
export function MediaPartView(props: { agent: string; part: MessagePart }): JSX.Element {
  const { part } = props;
  const href = mediaHref(props.agent, part.url);
  const name = part.filename ?? part.url?.split("/").pop() ?? "file";
  const details = part.providerMetadata?.downcity;
  if (!href) return <p class="media-file">{`[${details?.kind ?? "file"}: ${name}]`}</p>;
  if (inlineImages.has(part.mediaType ?? ""))
    return (
      <p class="media-image">
        <a href={href} target="_blank" rel="noopener noreferrer">
          <img src={href} alt={name} loading="lazy" />
        </a>
      </p>
    );
  return (
    <p class="media-file">
      <a href={href} download={name}>
        {name}
      </a>{" "}
      <small>
        ({details?.kind ?? "file"}, {part.mediaType ?? "unknown type"}
        {sizeText(details?.size)})
      </small>
    </p>
  );
}
