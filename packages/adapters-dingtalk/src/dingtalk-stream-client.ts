import { DWClient, type DWClientDownStream, TOPIC_ROBOT } from "dingtalk-stream";
import type WebSocket from "ws";
import { DingtalkApiError } from "./dingtalk-api-error.js";
import { postJson } from "./dingtalk-http.js";

/** What the SDK keeps private but a subclass must reach: the socket URL, the socket and the keep-alive timer. */
interface SdkInternals {
  dw_url?: string;
  socket?: WebSocket;
  heartbeatIntervallId?: NodeJS.Timeout;
  heartbeat_interval: number;
}

/** What `createStreamClient` needs. */
export interface StreamClientOptions {
  clientId: string;
  clientSecret: string;
  /** `POST` here to open a connection: `{apiBase}/v1.0/gateway/connections/open`. */
  gatewayUrl: string;
  /** How often the socket is pinged (a ping without a pong by the next one terminates it). */
  keepAliveMs: number;
  /** A frame the SDK could not read (it would otherwise throw inside the socket's handler). */
  onBadFrame(error: Error): void;
  /** DingTalk announced it will close this connection (a SYSTEM `disconnect` frame). */
  onDisconnectNotice(): void;
}

/**
 * The official SDK's `DWClient`, with three changes it has no option for: the gateway URL comes from the
 * options (the SDK hard-codes `https://api.dingtalk.com/v1.0/gateway/connections/open`, so a test or a
 * proxy cannot be reached otherwise), a reconnect clears the previous keep-alive timer (the SDK starts a
 * new one per connection), and a malformed frame is reported instead of thrown out of the socket handler.
 * The SDK's own reconnect (a fixed 1 s, forever) is off; the stream supervisor reconnects with backoff.
 */
export class DowncityStreamClient extends DWClient {
  private readonly settings: StreamClientOptions;

  constructor(settings: StreamClientOptions) {
    // `subscriptions` and `autoReconnect` are read from the options at run time, though the SDK's types omit them;
    // passing our own subscription list also keeps the SDK from adding to its shared default one.
    super({
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      keepAlive: true,
      debug: false,
      ua: "downcity",
      autoReconnect: false,
      subscriptions: [{ type: "CALLBACK", topic: TOPIC_ROBOT }],
    } as ConstructorParameters<typeof DWClient>[0]);
    this.settings = settings;
    this.internals().heartbeat_interval = settings.keepAliveMs;
  }

  private internals(): SdkInternals {
    return this as unknown as SdkInternals;
  }

  /** The open socket, if any. */
  currentSocket(): WebSocket | undefined {
    return this.internals().socket;
  }

  /** Opens a connection at the configured gateway: `{clientId, clientSecret, ua, subscriptions}` -> `{endpoint, ticket}`. */
  override async getEndpoint(): Promise<this> {
    const config = this.getConfig();
    const answer = await postJson<{ endpoint?: unknown; ticket?: unknown }>(
      "the DingTalk Stream gateway (connections/open)",
      this.settings.gatewayUrl,
      {
        clientId: config.clientId,
        clientSecret: config.clientSecret,
        ua: config.ua,
        subscriptions: config.subscriptions,
      },
    );
    if (typeof answer.endpoint !== "string" || typeof answer.ticket !== "string")
      throw new DingtalkApiError(
        200,
        undefined,
        "the DingTalk Stream gateway answered without endpoint or ticket",
      );
    this.internals().dw_url = `${answer.endpoint}?ticket=${encodeURIComponent(answer.ticket)}`;
    return this;
  }

  override _connect(): Promise<void> {
    const internals = this.internals();
    if (internals.heartbeatIntervallId) clearInterval(internals.heartbeatIntervallId);
    internals.heartbeatIntervallId = undefined;
    return super._connect();
  }

  override onSystem(downstream: DWClientDownStream): void {
    super.onSystem(downstream);
    // The SDK only marks itself disconnected and waits for the server to close; reconnect at once instead.
    if (downstream.headers?.topic === "disconnect") this.settings.onDisconnectNotice();
  }

  override onDownStream(data: string): void {
    try {
      super.onDownStream(data);
    } catch (error) {
      this.settings.onBadFrame(error as Error);
    }
  }

  /** Stops the keep-alive timer without closing (the socket is already gone). */
  clearKeepAlive(): void {
    const internals = this.internals();
    if (internals.heartbeatIntervallId) clearInterval(internals.heartbeatIntervallId);
    internals.heartbeatIntervallId = undefined;
  }
}

/** A robot-message callback frame as the SDK hands it over. */
export type RobotFrame = DWClientDownStream;
