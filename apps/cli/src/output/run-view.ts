import type { ChatEvent } from "../daemon/load-daemon-api.js";
import type { Colors } from "./colors.js";
import { createMarkdownBlocks, type MarkdownBlocks } from "./markdown-blocks.js";
import type { RenderReply } from "./reply-markdown.js";
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
  /**
   * Renders reply Markdown for the terminal; streamed text is then shown block by block, each
   * block once it is whole. Without it, text is written as it streams, as the model wrote it.
   */
  render?: RenderReply;
}

/** Renders the events of runs: streamed reply text, messages, one dim line per tool call, errors. */
export interface RunView {
  /** Handles one event; true when it printed reply text (a delta, a message or an error). */
  handle(event: ChatEvent): boolean;
  /** Writes other text (a notice, an error) on a line of its own. */
  print(text: string): void;
  /** Writes a whole reply (rendered when rendering is on) on a line of its own. */
  printReply(text: string): void;
  /** Writes what streamed runs still hold back (their unfinished last block). */
  flush(): void;
}

type RunState = { streamed: string; open: boolean; blocks?: MarkdownBlocks; wroteBlock: boolean };

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
      run = {
        streamed: "",
        open: false,
        wroteBlock: false,
        ...(options.render ? { blocks: createMarkdownBlocks() } : {}),
      };
      runs.set(requestId, run);
    }
    return run;
  };
  const openText = (run: RunState) => {
    if (run.open) return;
    newLine();
    write(options.replyPrefix ?? "");
    run.open = true;
  };
  const writeBlocks = (run: RunState, markdown: string) => {
    const rendered = markdown.trim() && options.render ? options.render(markdown) : "";
    if (!rendered) return;
    if (run.wroteBlock) write("\n\n");
    else openText(run);
    write(rendered);
    run.wroteBlock = true;
  };
  const closeText = (run: RunState) => {
    if (run.blocks) writeBlocks(run, run.blocks.rest());
    run.wroteBlock = false;
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
    printReply(text) {
      newLine();
      write(`${options.replyPrefix ?? ""}${options.render ? options.render(text) : text.trimEnd()}\n`);
    },
    flush() {
      for (const run of runs.values()) closeText(run);
    },
    handle(event) {
      switch (event.type) {
        case "text-delta": {
          if (!event.delta) return false;
          const run = runOf(event.requestId);
          run.streamed += event.delta;
          if (run.blocks) {
            const finished = run.blocks.push(event.delta);
            if (finished) writeBlocks(run, finished);
            return true;
          }
          openText(run);
          write(event.delta);
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
          write(`${options.replyPrefix ?? ""}${options.render ? options.render(text) : text}\n`);
          return true;
        }
        case "run-end":
        case "run-error": {
          const run = runOf(event.requestId);
          runs.delete(event.requestId);
          closeText(run);
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
