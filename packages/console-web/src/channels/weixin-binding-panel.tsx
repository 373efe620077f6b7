import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { getJson, postJson } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";

/** What downcity.json names as a WeChat channel's adapter: those channels bind by QR code. */
export const weixinAdapter = "@downcity/adapters-weixin";

/** A WeChat binding as the console server reports it (`/console/api/channels/weixin-binding`). */
interface WeixinBinding {
  channel: string;
  state: string;
  qrImage?: string;
  link?: string;
  message: string;
  credentialsFile?: string;
}

const liveStates = new Set(["starting", "waiting", "scanned"]);
const stateLabels: Record<string, string> = {
  none: "not binding",
  starting: "asking WeChat for a code",
  waiting: "waiting for the scan",
  scanned: "scanned, waiting for the confirmation",
  confirmed: "bound",
  expired: "code expired",
  timeout: "timed out",
  "already-bound": "already bound",
  blocked: "needs the terminal",
  failed: "failed",
  cancelled: "cancelled",
};

/**
 * A WeChat channel's QR binding: shows the code the console server asked iLink for, follows the scan and
 * the confirmation live, and says where the token went and what happens next.
 */
export function WeixinBindingPanel(props: { agent: string; channel: string; unbound: boolean }): JSX.Element {
  const { agent, channel } = props;
  const binding = usePoll(
    async () =>
      (await getJson<{ binding: WeixinBinding }>("channels/weixin-binding", { agent, channel })).binding,
    1000,
    `weixin-binding ${agent} ${channel}`,
  );
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const post = async (path: string) => {
    setProblem(undefined);
    try {
      await postJson(path, { agent, channel });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    await binding.refresh();
  };
  const view = binding.value;
  const state = view?.state ?? "none";
  const live = liveStates.has(state);
  // A working or just-made binding is replaced by a new scan; an absent or expired one is made.
  const bound = state === "confirmed" || state === "already-bound" || !props.unbound;
  return (
    <section aria-label={`WeChat binding of ${channel}`} data-binding-state={state}>
      <h3>WeChat binding</h3>
      {problem ? <p role="alert">{problem}</p> : null}
      <p role="status">
        <span class={`status status-binding-${state}`}>{stateLabels[state] ?? state}</span> {view?.message}
      </p>
      {live && view?.qrImage ? (
        <figure class="qr-code">
          <img src={view.qrImage} alt={`QR code to bind the WeChat channel ${channel}`} width={240} />
          <figcaption>
            If the picture does not scan, open this link in WeChat: <code>{view.link}</code>
          </figcaption>
        </figure>
      ) : null}
      {live ? (
        <button
          type="button"
          class="small secondary"
          onClick={() => void post("channels/weixin-binding/cancel")}
        >
          Cancel binding
        </button>
      ) : (
        <button type="button" class="small" onClick={() => void post("channels/weixin-binding")}>
          {bound ? "Bind again (new QR code)" : "Show a QR code to bind"}
        </button>
      )}
    </section>
  );
}
