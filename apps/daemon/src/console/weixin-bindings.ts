import {
  bindWeixinChannel,
  type WeixinBindingStatus,
  weixinChannelStateDir,
} from "@downcity/adapters-weixin";
import { renderSVG } from "uqr";

/** Where a console binding of a WeChat channel stands, as the Channels page shows it. */
export type WeixinBindingState =
  | "none"
  | "starting"
  | "waiting"
  | "scanned"
  | "confirmed"
  | "expired"
  | "already-bound"
  | "blocked"
  | "timeout"
  | "failed"
  | "cancelled";

/** One channel's binding for the page: the code to scan while it is live, and what to do next. */
export interface WeixinBindingView {
  channel: string;
  state: WeixinBindingState;
  /** The QR code as a `data:image/svg+xml` URL, while it waits for the scan or the confirmation. */
  qrImage?: string;
  /** The link the code holds (opened in WeChat when the picture does not scan). */
  link?: string;
  /** What happened and the operator's next step. */
  message: string;
  /** Where the token was stored (mode 0600). */
  credentialsFile?: string;
}

/** The WeChat bindings the console runs: at most one live binding per project channel. */
export interface WeixinBindings {
  /** Starts a binding (or returns the one already live) and resolves once its code is shown or it failed. */
  start(rootDir: string, channel: string, baseUrl: string): Promise<WeixinBindingView>;
  view(rootDir: string, channel: string): WeixinBindingView;
  cancel(rootDir: string, channel: string): WeixinBindingView;
  /** Ends every live binding (the console is stopping). */
  close(): void;
}

const live = new Set<WeixinBindingState>(["starting", "waiting", "scanned"]);

const qrImage = (content: string) =>
  `data:image/svg+xml;base64,${Buffer.from(renderSVG(content, { pixelSize: 6 })).toString("base64")}`;

function advice(state: WeixinBindingState, channel: string, credentialsFile?: string): string {
  const terminal = `\`downcity channels login ${channel}\` in the project`;
  switch (state) {
    case "none":
      return "Not binding. Start a binding to show a QR code.";
    case "starting":
      return "Asking WeChat for a QR code...";
    case "waiting":
      return "Waiting for the scan: in WeChat (8.0.70 or later) tap + → Scan, scan this code, then confirm on the phone.";
    case "scanned":
      return "Scanned: confirm the binding on the phone.";
    case "confirmed":
      return `Bound: the bot token is stored in ${credentialsFile} (readable by you only). A running agent connects this channel within seconds; a stopped one when it starts (Agents page → Start, or downcity start).`;
    case "expired":
      return "The code expired before it was confirmed: show a new code.";
    case "timeout":
      return "Nobody confirmed the code in time: show a new code.";
    case "already-bound":
      return "WeChat says this bot is already bound here; its stored token stays in use.";
    case "blocked":
      return `WeChat asked for the digits shown on the phone, which only the terminal can take: run ${terminal}.`;
    case "cancelled":
      return "Binding cancelled.";
    case "failed":
      return `The binding failed; try again, or run ${terminal}.`;
  }
}

// iLink's statuses of a code still to confirm, as the page names them.
const shownStates: Partial<Record<WeixinBindingStatus, WeixinBindingState>> = {
  wait: "waiting",
  scaned: "scanned",
  scaned_but_redirect: "scanned",
};

/**
 * Creates the console's WeChat bindings: each runs the adapter's own binding flow (the one `downcity
 * channels login` runs) in the console process, renders its QR code as SVG for the page, and stores the
 * token in the channel's state folder, where a running daemon picks it up within seconds.
 */
export function createWeixinBindings(options: { timeoutMs?: number } = {}): WeixinBindings {
  const bindings = new Map<
    string,
    { view: WeixinBindingView; abort: AbortController; shown: Promise<void> }
  >();
  const key = (rootDir: string, channel: string) => `${rootDir}\n${channel}`;
  const set = (entry: { view: WeixinBindingView }, change: Partial<WeixinBindingView>) => {
    const next = { ...entry.view, ...change };
    if (!live.has(next.state)) {
      delete next.qrImage;
      delete next.link;
    }
    entry.view = { ...next, message: advice(next.state, next.channel, next.credentialsFile) };
  };

  const start = async (rootDir: string, channel: string, baseUrl: string) => {
    const existing = bindings.get(key(rootDir, channel));
    if (existing && live.has(existing.view.state)) {
      await existing.shown;
      return existing.view;
    }
    const abort = new AbortController();
    let showed: () => void = () => {};
    const entry = {
      view: { channel, state: "starting" as WeixinBindingState, message: advice("starting", channel) },
      abort,
      shown: new Promise<void>((resolve) => {
        showed = resolve;
      }),
    };
    bindings.set(key(rootDir, channel), entry);
    bindWeixinChannel({
      baseUrl,
      stateDir: weixinChannelStateDir(rootDir, channel),
      signal: abort.signal,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      onQrCode: (code) => {
        set(entry, { state: "waiting", qrImage: qrImage(code.content), link: code.content });
        showed();
      },
      onStatus: (status) => {
        const state = shownStates[status];
        if (state) set(entry, { state });
      },
    })
      .then((result) => {
        if (result.status === "confirmed")
          set(entry, { state: "confirmed", credentialsFile: result.credentialsFile });
        else set(entry, { state: result.status });
      })
      .catch((error: unknown) => {
        set(entry, { state: "failed" });
        // iLink's own words (never a token: the binding has none yet) before the advice.
        entry.view = { ...entry.view, message: `${(error as Error).message}. ${entry.view.message}` };
      })
      .finally(showed);
    await entry.shown;
    return entry.view;
  };

  return {
    start,
    view: (rootDir, channel) =>
      bindings.get(key(rootDir, channel))?.view ?? {
        channel,
        state: "none",
        message: advice("none", channel),
      },
    cancel(rootDir, channel) {
      const entry = bindings.get(key(rootDir, channel));
      if (!entry) return { channel, state: "none", message: advice("none", channel) };
      entry.abort.abort();
      if (live.has(entry.view.state)) set(entry, { state: "cancelled" });
      return entry.view;
    },
    close() {
      for (const entry of bindings.values()) entry.abort.abort();
    },
  };
}
