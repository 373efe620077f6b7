import { useEffect, useRef } from "preact/hooks";

/** Subscribes to a console SSE stream while mounted; `onEvent` receives each named event's parsed data. */
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
    const source = new EventSource(url, { withCredentials: true });
    const listeners = namesKey.split(",").map((name) => {
      const listener = (event: MessageEvent<string>) => {
        handler.current(name, JSON.parse(event.data) as Record<string, unknown>);
      };
      source.addEventListener(name, listener as EventListener);
      return listener;
    });
    return () => {
      void listeners;
      source.close();
    };
  }, [url, namesKey]);
}
