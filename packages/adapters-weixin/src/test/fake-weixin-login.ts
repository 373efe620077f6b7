import { randomUUID } from "node:crypto";

type Status = "wait" | "scaned" | "confirmed" | "expired";

/** The QR binding part of the fake: codes it issued and what the "phone" did with them. */
export interface FakeWeixinLogin {
  /** Answers `get_bot_qrcode` and `get_qrcode_status`; undefined for other paths. */
  handle(url: URL, body: Buffer): Promise<Record<string, unknown> | undefined>;
  /** The codes issued so far, newest last. */
  codes(): string[];
  /** The phone scanned `qrcode` (status "scaned"). */
  scan(qrcode: string): void;
  /** The phone confirmed: the next status poll answers "confirmed" with `token` (made valid on the fake). */
  confirm(qrcode: string, token: string, userId?: string): void;
  expire(qrcode: string): void;
}

/** Creates the binding endpoints of the fake (`bot_type` 3; the binding's `baseurl` is the fake itself). */
export function createFakeWeixinLogin(origin: () => string, issue: (token: string) => void): FakeWeixinLogin {
  const codes = new Map<string, { status: Status; token?: string; userId?: string }>();
  return {
    async handle(url) {
      if (url.pathname === "/ilink/bot/get_bot_qrcode") {
        if (url.searchParams.get("bot_type") !== "3") return { ret: -1, errmsg: "unknown bot_type" };
        const qrcode = randomUUID().replace(/-/g, "");
        codes.set(qrcode, { status: "wait" });
        return {
          qrcode,
          qrcode_img_content: `https://liteapp.weixin.qq.com/q/${qrcode}?qrcode=${qrcode}&bot_type=3`,
        };
      }
      if (url.pathname !== "/ilink/bot/get_qrcode_status") return undefined;
      const code = codes.get(url.searchParams.get("qrcode") ?? "");
      if (!code) return { status: "expired" };
      // A short long poll: the status changes while it waits are answered at once next time.
      if (code.status === "wait") await new Promise((resolve) => setTimeout(resolve, 200));
      if (code.status !== "confirmed") return { status: code.status };
      return {
        status: "confirmed",
        bot_token: code.token,
        baseurl: origin(),
        ilink_bot_id: "fakebot@im.bot",
        ilink_user_id: code.userId ?? "owner@im.wechat",
      };
    },
    codes: () => [...codes.keys()],
    scan(qrcode) {
      const code = codes.get(qrcode);
      if (code) code.status = "scaned";
    },
    confirm(qrcode, token, userId) {
      issue(token);
      codes.set(qrcode, { status: "confirmed", token, ...(userId ? { userId } : {}) });
    },
    expire(qrcode) {
      const code = codes.get(qrcode);
      if (code) code.status = "expired";
    },
  };
}
