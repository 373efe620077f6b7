import type { ScriptedCall, ScriptedReply } from "@downcity/core/scripted";

/** A running scripted stand-in for an LLM: an OpenAI-compatible server on 127.0.0.1. */
export interface DemoModel {
  /** Base URL for `llm.baseURL` (provider `openai-compatible`). */
  url: string;
  port: number;
  /** The `llm` section that points a project at this stand-in. */
  llm: { provider: "openai-compatible"; model: string; baseURL: string; structuredOutputs: boolean };
  close(): Promise<void>;
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

function parseToolResult(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Decides the scripted reply: a shell tool call for a new message, a summary after a tool result or a shell-exit notice. */
export function demoReply(call: ScriptedCall): ScriptedReply {
  const last = call.messages.at(-1);
  if (!last) return { text: "Hello! (scripted stand-in)" };
  if (last.role === "tool") {
    const result = parseToolResult(last.text);
    if (typeof result.error === "string")
      return { text: `The shell tool failed: ${String(result.message ?? result.error)}` };
    const previous = [...call.messages].reverse().find((message) => message.text.includes("[tool-call "));
    if (previous?.text.includes("[tool-call shell_start")) {
      return {
        text: `I started a background job (${String(result.shell_id)}). I'll tell you when it finishes.`,
      };
    }
    const output = String(result.output ?? "").trim();
    const command = /\[tool-call shell_exec (\{[\s\S]*?\})\]/.exec(previous?.text ?? "")?.[1];
    const ran = command ? String(parseToolResult(command).command ?? "it") : "it";
    return {
      text: `I ran \`${ran}\` in the shell (exit code ${String(result.exit_code)}). Output:\n${output || "(nothing)"}`,
    };
  }
  const text = last.text;
  if (text.includes("[shell-exit]")) {
    const tail = /Last output:\n([\s\S]*?)\nFull output:/.exec(text)?.[1]?.trim() ?? "";
    const code = /exited with code (\d+)/.exec(text)?.[1];
    return {
      text: `The background job finished${code !== undefined ? ` with exit code ${code}` : ""}. It printed: ${tail || "(nothing)"}`,
    };
  }
  if (!call.tools.includes("shell_exec")) return { text: `You said: ${text}` };
  if (/\b(background|start)\b/i.test(text)) {
    return {
      toolCalls: [
        {
          toolName: "shell_start",
          input: { command: "sleep 1; echo background job done", yield_ms: 100 },
        },
      ],
    };
  }
  const explicit = /^(?:run|\$)\s+([\s\S]+)$/i.exec(text.trim())?.[1];
  const command = explicit ?? `printf '%s' ${quote(text)} | wc -w`;
  return { toolCalls: [{ toolName: "shell_exec", input: { command } }] };
}

/** Starts the scripted stand-in (core's OpenAI-compatible test server) whose replies drive the demo loop. */
export async function startDemoModel(options: { port?: number } = {}): Promise<DemoModel> {
  const { startOpenAICompatibleServer } = await import("@downcity/core/scripted");
  const server = await startOpenAICompatibleServer({
    respond: demoReply,
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  return {
    url: server.url,
    port: server.port,
    llm: {
      provider: "openai-compatible",
      model: "downcity-scripted-demo",
      baseURL: server.url,
      structuredOutputs: true,
    },
    close: () => server.close(),
  };
}
