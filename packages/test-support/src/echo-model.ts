import {
  type OpenAICompatibleServer,
  type ScriptedCall,
  startOpenAICompatibleServer,
} from "@downcity/core/scripted";

/** A scripted OpenAI-compatible model answering `echo: <the last user text>`. */
export interface EchoModel extends OpenAICompatibleServer {
  /** The last user text of each call, in order. */
  userTexts(): string[];
  /** Whether the held run (see `hold`) has reached the model and waits. */
  holding(): boolean;
  /** Lets the held run answer; every later call answers at once. */
  release(): void;
}

/** The user's own words of the last user turn: a group turn's speaker label ("[Ada]: ") is the runtime's. */
const lastUserText = (call: ScriptedCall): string =>
  (call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "").replace(
    /^\[[^\]\n]*\]: /,
    "",
  );

/**
 * Starts an echo model on 127.0.0.1. With `hold`, the first call whose user text contains it waits for
 * `release()`: a run caught between accept and reply, for crash tests.
 */
export async function startEchoModel(options: { hold?: string } = {}): Promise<EchoModel> {
  let release: (() => void) | undefined;
  const server = await startOpenAICompatibleServer({
    respond: async (call) => {
      const text = lastUserText(call);
      if (options.hold !== undefined && text.includes(options.hold) && release === undefined)
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      return `echo: ${text}`;
    },
  });
  return {
    ...server,
    userTexts: () => server.calls.map(lastUserText),
    holding: () => release !== undefined,
    release: () => release?.(),
  };
}
