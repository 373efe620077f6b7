import type { CliIo } from "../cli-io.js";
import type { DoctorCheck } from "./doctor-command.js";

type Finding = { status: DoctorCheck["status"]; detail: string; fix?: string };

const loginFix = (channel: string) => `downcity channels login ${channel}`;

type WeixinModule = typeof import("@downcity/adapters-weixin");

// The stored binding of one channel checked offline: its token, or what is wrong with the file.
async function storedToken(
  weixin: WeixinModule,
  rootDir: string,
  name: string,
): Promise<{ token: string; baseUrl?: string; userId?: string } | Finding> {
  const stored = await weixin.inspectWeixinCredentials(weixin.weixinChannelStateDir(rootDir, name));
  if (stored.state === "missing")
    return {
      status: "fail",
      detail: `${name}: no WeChat bot is bound (no ${stored.file})`,
      fix: loginFix(name),
    };
  if (stored.state === "bad-shape")
    return {
      status: "fail",
      detail: `${name}: the stored binding ${stored.file} is unusable: ${stored.problem}`,
      fix: `${loginFix(name)} (writes a new one)`,
    };
  if (stored.state === "loose-mode")
    return {
      status: "fail",
      detail: `${name}: ${stored.file} has mode ${stored.mode.toString(8).padStart(4, "0")}; the bot token must be readable by you only`,
      fix: `chmod 600 ${stored.file}`,
    };
  const { botToken, baseUrl, userId } = stored.credentials;
  return { token: botToken, ...(baseUrl ? { baseUrl } : {}), ...(userId ? { userId } : {}) };
}

async function channelFinding(
  weixin: WeixinModule,
  rootDir: string,
  { name, options: channel }: Awaited<ReturnType<WeixinModule["loadWeixinChannels"]>>[number],
  offline: boolean,
): Promise<Finding> {
  const stored = channel.token ? { token: channel.token } : await storedToken(weixin, rootDir, name);
  if ("status" in stored) return stored;
  const source = channel.token ? "token from downcity.json" : "token stored by channels login";
  if (offline) return { status: "ok", detail: `${name}: ${source}, well formed (not verified: --offline)` };
  const baseUrl = stored.baseUrl ?? channel.baseUrl;
  const answer = await weixin.verifyWeixinToken({
    baseUrl,
    token: stored.token,
    botAgent: channel.botAgent,
    ...(stored.userId ? { userId: stored.userId } : {}),
  });
  if (answer.verdict === "valid") return { status: "ok", detail: `${name}: ${source}, accepted by iLink` };
  if (answer.verdict === "expired")
    return {
      status: "fail",
      detail: `${name}: iLink refused the ${source}: the binding expired (${answer.message})`,
      fix: channel.token
        ? `replace channels.${name}.token, or drop it and run ${loginFix(name)}`
        : loginFix(name),
    };
  return {
    status: "warn",
    detail: `${name}: ${source}, well formed; iLink did not answer (${answer.message})`,
    fix: `check the network and channels.${name}.baseUrl (${baseUrl}), then downcity doctor again`,
  };
}

/**
 * `doctor`'s `weixin` line: each WeChat channel's bot token, which `downcity channels login` stored in the
 * channel's state folder (or downcity.json gives). Offline: present, well formed, readable by the owner
 * only. Online (without --offline): accepted by iLink. Skipped when the project has no WeChat channel.
 */
export async function checkWeixinChannels(
  io: CliIo,
  rootDir: string,
  options: { offline?: boolean },
): Promise<DoctorCheck | undefined> {
  // Loaded only for projects that get here: the adapter's client is not part of the CLI's start-up.
  const weixin = await import("@downcity/adapters-weixin");
  const channels = await weixin.loadWeixinChannels(rootDir, { env: io.env }).catch(() => []);
  if (channels.length === 0) return undefined;
  const findings: Finding[] = [];
  for (const channel of channels)
    findings.push(await channelFinding(weixin, rootDir, channel, options.offline === true));
  const status = findings.some((item) => item.status === "fail")
    ? "fail"
    : findings.some((item) => item.status === "warn")
      ? "warn"
      : "ok";
  const fixes = findings.flatMap((item) => (item.fix && item.status !== "ok" ? [item.fix] : []));
  return {
    name: "weixin",
    status,
    detail: findings.map((item) => item.detail).join("\n"),
    ...(fixes.length > 0 ? { fix: fixes.join("; ") } : {}),
  };
}
