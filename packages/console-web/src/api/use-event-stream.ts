import { useEffect, useRef } from "preact/hooks";

/** How long to wait before opening a stream the server closed for good (daemon restarting). */
const reopenAfterMs = 2000;

/**
 * Subscribes to a console SSE stream while mounted; `onEvent` receives each named event's parsed
 * data. An `end` event closes the stream for good (a finished shell session has nothing more).
 */
export function useEventStream(
  url: string | undefined,
  names: readonly string[],
  onEvent: (name: string, data: Record<string, unknown>) => void,
): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const namesKey = names.join(",");
  useEffect(() => {
    if (!url) return;
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const open = () => {
      source = new EventSource(url, { withCredentials: true });
      for (const name of namesKey.split(",")) {
        source.addEventListener(name, (event) => {
          handler.current(name, JSON.parse((event as MessageEvent<string>).data) as Record<string, unknown>);
        });
      }
      source.addEventListener("end", () => {
        stopped = true;
        source?.close();
        handler.current("end", {});
      });
      // EventSource retries dropped connections itself, but gives up on an error status (the
      // agent was stopped): try again later so the page follows it once it runs again.
      source.addEventListener("error", () => {
        if (stopped || source?.readyState !== EventSource.CLOSED) return;
        timer = setTimeout(open, reopenAfterMs);
      });
    };
    open();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      source?.close();
    };
  }, [url, namesKey]);
}
