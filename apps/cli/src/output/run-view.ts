import type { ChatEvent } from "../daemon/load-daemon-api.js";
import type { Colors } from "./colors.js";
import { toolLineHead, toolLineTail } from "./tool-activity-line.js";

/** Options of `createRunView`. */
export interface RunViewOptions {
  write(text: string): void;
  atLineStart(): boolean;
  colors: Colors;
  /** On a terminal a tool line opens at the call and is completed at the result; elsewhere it is printed whole at the result. */
  live: boolean;
  /** Put before each reply ("agent› " in the interactive chat). */
  replyPrefix?: string;
}

/** Renders the events of runs: streamed reply text, messages, one dim line per tool call, errors. */
export interface RunView {
  /** Handles one event; true when it printed reply text (a delta, a message or an error). */
  handle(event: ChatEvent): boolean;
  /** Writes other text (a notice, an error) on a line of its own. */
  print(text: string): void;
}

type RunState = { streamed: string; open: boolean };

/** Creates the renderer of one chat's runs. */
export function createRunView(options: RunViewOptions): RunView {
  const { colors } = options;
  const runs = new Map<string, RunState>();
  const tools = new Map<string, { toolName: string; summary: string }>();
  // The tool call whose head is the last thing written (its tail may still go on the same line).
  let openTool: string | undefined;

  const endToolLine = () => {
    if (openTool) {
      openTool = undefined;
      options.write("\n");
    }
  };
  const write = (text: string) => {
    endToolLine();
    options.write(text);
  };
  const newLine = () => {
    endToolLine();
    if (!options.atLineStart()) options.write("\n");
  };
  const runOf = (requestId: string): RunState => {
    let run = runs.get(requestId);
    if (!run) {
      run = { streamed: "", open: false };
      runs.set(requestId, run);
    }
    return run;
  };
  const closeText = (run: RunState) => {
    if (run.open) {
      write("\n");
      run.open = false;
    }
  };

  return {
    print(text) {
      newLine();
      write(text);
    },
    handle(event) {
      switch (event.type) {
        case "text-delta": {
          if (!event.delta) return false;
          const run = runOf(event.requestId);
          if (!run.open) {
            newLine();
            write(options.replyPrefix ?? "");
            run.open = true;
          }
          write(event.delta);
          run.streamed += event.delta;
          return true;
        }
        case "tool-call": {
          closeText(runOf(event.requestId));
          tools.set(event.toolCallId, { toolName: event.toolName, summary: event.summary });
          if (options.live) {
            newLine();
            write(colors.dim(toolLineHead(event)));
            openTool = event.toolCallId;
          }
          return false;
        }
        case "tool-result": {
          const call = tools.get(event.toolCallId) ?? { toolName: event.toolName, summary: "" };
          tools.delete(event.toolCallId);
          const tail = toolLineTail({
            ...call,
            durationMs: event.durationMs,
            ok: event.ok,
            ...(event.summary ? { outcome: event.summary } : {}),
          });
          if (openTool === event.toolCallId) {
            openTool = undefined;
            options.write(`${colors.dim(tail)}\n`);
          } else {
            closeText(runOf(event.requestId));
            newLine();
            write(`${colors.dim(`${toolLineHead(call)}${tail}`)}\n`);
          }
          return false;
        }
        case "tool-progress": {
          // A waiting tool (shell_sleep) says how far it got: one dim line per report.
          if (!options.live) return false;
          if (openTool) {
            options.write("\n");
            openTool = undefined;
          }
          closeText(runOf(event.requestId));
          newLine();
          write(`${colors.dim(`  ${event.tool}  ${event.message}`)}\n`);
          return false;
        }
        case "chat-message": {
          const text = event.text.trim();
          const run = runOf(event.requestId);
          if (!text || run.streamed.trim() === text) return false;
          closeText(run);
          newLine();
          write(`${options.replyPrefix ?? ""}${text}\n`);
          return true;
        }
        case "run-end":
        case "run-error": {
          const run = runOf(event.requestId);
          runs.delete(event.requestId);
          if (run.open) write("\n");
          if (event.type === "run-end") return false;
          newLine();
          write(`${colors.red(`error› ${event.message}${event.code ? ` (${event.code})` : ""}`)}\n`);
          return true;
        }
        default:
          return false;
      }
    },
  };
}
