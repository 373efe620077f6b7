import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { getJson, serviceCommand } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";
import { WeixinBindingPanel, weixinAdapter } from "../channels/weixin-binding-panel.js";
import { formatTime } from "../format/format-duration.js";

interface ChannelRow {
  name: string;
  adapter: string;
  state: string;
  error?: string;
  lastEventAt?: string;
  counts: Record<string, number>;
}

interface AccessRow {
  channel: string;
  dm: string;
  approved: Array<{ userId: string; username?: string; approvedAt?: string }>;
  pending: Array<{ code: string; userId: string; username?: string; expiresAt: string }>;
}

function settled<Value>(promise: Promise<Value>): Promise<Value | undefined> {
  return promise.catch(() => undefined);
}

/** Channels: each channel's state and counters, its pairing requests to approve, and WeChat's QR binding. */
export function ChannelsPage(props: { agent: string }): JSX.Element {
  const { agent } = props;
  const state = usePoll(
    async () => {
      const channels = (await settled(serviceCommand<{ channels: ChannelRow[] }>(agent, "channels", "list")))
        ?.channels;
      return {
        channels,
        access:
          (await settled(serviceCommand<{ channels: AccessRow[] }>(agent, "access", "list")))?.channels ?? [],
        // A stopped agent lists no channels, but its WeChat channels can be bound from downcity.json.
        weixin: channels
          ? []
          : ((await settled(getJson<{ channels: string[] }>("channels/weixin-channels", { agent })))
              ?.channels ?? []),
      };
    },
    2000,
    `channels ${agent}`,
  );
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const act = async (action: string, payload: Record<string, unknown>) => {
    setProblem(undefined);
    try {
      await serviceCommand(agent, "access", action, payload);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    await state.refresh();
  };
  const value = state.value;
  return (
    <section aria-labelledby="channels-title">
      <h1 id="channels-title">Channels</h1>
      {problem || state.error ? <p role="alert">{problem ?? state.error}</p> : null}
      {value && !value.channels && value.weixin.length === 0 ? (
        <p>This agent's daemon does not offer channels.</p>
      ) : null}
      {value && !value.channels && value.weixin.length > 0 ? (
        <p>
          The agent is not running, so its channels are not listed. Its WeChat channels can be bound here all
          the same; they connect when it starts (Agents page → Start, or <code>downcity start</code>).
        </p>
      ) : null}
      {value?.channels
        ? null
        : value?.weixin.map((name) => (
            <article key={name} data-channel={name}>
              <header>
                <strong>{name}</strong> <code>{weixinAdapter}</code>
              </header>
              <WeixinBindingPanel agent={agent} channel={name} unbound />
            </article>
          ))}
      {value?.channels?.length === 0 ? (
        <p>
          No channels. Add one under <code>channels</code> in <code>downcity.json</code>.
        </p>
      ) : null}
      {value?.channels?.map((channel) => (
        <ChannelCard
          key={channel.name}
          agent={agent}
          channel={channel}
          access={value.access.find((item) => item.channel === channel.name)}
          act={act}
        />
      ))}
    </section>
  );
}

/** One listed channel: its state and counters, WeChat's binding where it applies, and its pairing requests. */
function ChannelCard(props: {
  agent: string;
  channel: ChannelRow;
  access: AccessRow | undefined;
  act: (action: string, payload: Record<string, unknown>) => Promise<void>;
}): JSX.Element {
  const { agent, channel, access, act } = props;
  return (
    <article data-channel={channel.name}>
      <header>
        <strong>{channel.name}</strong> <code>{channel.adapter}</code>{" "}
        <span class={`status status-${channel.state}`}>{channel.state}</span>
        {channel.error ? <small> {channel.error}</small> : null}
      </header>
      <p>
        Last event {formatTime(channel.lastEventAt ?? null)} ·{" "}
        {Object.entries(channel.counts)
          .map(
            ([name, count]) => `${count} ${name.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)}`,
          )
          .join(", ")}
      </p>
      {channel.adapter === weixinAdapter ? (
        <WeixinBindingPanel agent={agent} channel={channel.name} unbound={channel.state !== "connected"} />
      ) : null}
      {access ? (
        <>
          <h3>Pairing requests</h3>
          {access.pending.length === 0 ? <p>None waiting.</p> : null}
          <ul aria-label={`Pairing requests of ${channel.name}`}>
            {access.pending.map((request) => (
              <li key={request.code}>
                <code>{request.code}</code> from {request.username ?? request.userId} · expires{" "}
                {formatTime(request.expiresAt)}{" "}
                <button
                  type="button"
                  class="small"
                  aria-label={`Approve ${request.username ?? request.userId}`}
                  onClick={() => void act("approve", { code: request.code })}
                >
                  Approve
                </button>{" "}
                <button
                  type="button"
                  class="small secondary"
                  aria-label={`Deny ${request.username ?? request.userId}`}
                  onClick={() => void act("deny", { code: request.code })}
                >
                  Deny
                </button>
              </li>
            ))}
          </ul>
          <h3>Approved</h3>
          {access.approved.length === 0 ? <p>Nobody approved by pairing yet.</p> : null}
          <ul aria-label={`Approved users of ${channel.name}`}>
            {access.approved.map((user) => (
              <li key={user.userId}>
                {user.username ?? user.userId}{" "}
                <button
                  type="button"
                  class="secondary outline small"
                  aria-label={`Revoke ${user.username ?? user.userId}`}
                  onClick={() => void act("revoke", { channel: channel.name, userId: user.userId })}
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </article>
  );
}
