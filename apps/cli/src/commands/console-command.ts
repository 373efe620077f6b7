import { spawn } from "node:child_process";
import type { Command } from "commander";
import { CliExit, exitCodes } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";

type JsonOption = { json?: boolean };
type AgentRow = { projectRoot: string; pid: number; startedAt: string; stoppedAt?: string };

function describeAgents(agents: AgentRow[], removed: AgentRow[], stopped: AgentRow[] = []): string {
  const lines = agents.map((agent) => `${agent.projectRoot}  pid ${agent.pid}  since ${agent.startedAt}`);
  for (const agent of stopped)
    lines.push(
      `${agent.projectRoot}  stopped ${agent.stoppedAt ?? ""}  (\`downcity agent off ${agent.projectRoot}\` removes it)`,
    );
  if (agents.length + stopped.length === 0)
    lines.push("No agents registered (every `downcity start` registers its agent).");
  for (const agent of removed)
    lines.push(`removed stale entry: ${agent.projectRoot} (pid ${agent.pid} is gone)`);
  return lines.join("\n");
}

// A browser is opened only where one can show: macOS, Windows, or Linux with a display.
function browserCommand(
  env: Record<string, string | undefined>,
): { command: string; args: string[] } | undefined {
  if (process.platform === "darwin") return { command: "open", args: [] };
  if (process.platform === "win32") return { command: "cmd", args: ["/c", "start", '""'] };
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return { command: "xdg-open", args: [] };
  return undefined;
}

function openBrowser(url: string, env: Record<string, string | undefined>): boolean {
  const opener = browserCommand(env);
  if (!opener) return false;
  try {
    const child = spawn(opener.command, [...opener.args, url], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** `downcity console start|stop|status|agents|open`: the user-level console, its agent registry and its web page. */
export function registerConsoleCommand(program: Command, io: CliIo): void {
  const consoleCommand = program
    .command("console")
    .description(
      "The user-level console: start, stop, status, the registered agents and the web page (open)",
    );

  consoleCommand
    .command("start")
    .description("Start the console in the background (state in $DOWNCITY_HOME/console/)")
    .option("--json", "print the result as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const started = await api.startConsole({ env: io.env });
      printData(io, started, {
        json: options.json,
        human: () =>
          [
            `Console: ${started.alreadyRunning ? "already running" : "started"} (pid ${started.pid}) on http://${started.host}:${started.port}`,
            "Sign in to the web page with `downcity console open`.",
          ].join("\n"),
      });
    });

  consoleCommand
    .command("open")
    .description(
      "Start the console if needed, print a one-time login link (single use, valid 60 s) and open it in a browser when there is a display",
    )
    .option("--print", "only print the link; do not open a browser")
    .option("--json", "print the link as JSON")
    .action(async (options: JsonOption & { print?: boolean }) => {
      const api = await loadDaemonApi();
      // One command: the console starts first when it does not run yet.
      const consoleProcess = await api.startConsole({ env: io.env });
      if (!consoleProcess.alreadyRunning && !options.json)
        io.stderr.write(
          `Console: started (pid ${consoleProcess.pid}) on http://${consoleProcess.host}:${consoleProcess.port}\n`,
        );
      const link = await api.createConsoleLoginLink({ env: io.env });
      const opened = !options.print && !options.json && openBrowser(link.url, io.env);
      printData(
        io,
        { ...link, opened },
        {
          json: options.json,
          human: () =>
            [
              link.url,
              `This link signs you in once and expires at ${link.expiresAt}.${opened ? " Opening it in your browser…" : ""}`,
            ].join("\n"),
        },
      );
    });

  consoleCommand
    .command("stop")
    .description("Stop the console (registered agents keep running)")
    .option("--json", "print the result as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const stopped = await api.stopConsole({ env: io.env });
      printData(io, stopped, {
        json: options.json,
        human: () => (stopped.stopped ? `Console: stopped (pid ${stopped.pid})` : "Console: was not running"),
      });
    });

  consoleCommand
    .command("status")
    .description("Show whether the console runs and its live agents (exit code 3 when it does not run)")
    .option("--json", "print the status as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const status = await api.consoleStatus({ env: io.env });
      printData(io, status, {
        json: options.json,
        human: () =>
          [
            status.running
              ? `Console: running (pid ${status.pid}) on http://${status.host}:${status.port}`
              : "Console: not running (start it with `downcity console start`)",
            describeAgents(status.agents, status.removedAgents, status.stoppedAgents),
          ].join("\n"),
      });
      if (!status.running) throw new CliExit(exitCodes.notRunning);
    });

  consoleCommand
    .command("agents")
    .description(
      "List registered agents: running, stopped (kept until `agent off` removes them); entries of crashed daemons are removed",
    )
    .option("--json", "print the agents as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const listed = await api.listAgents({ env: io.env });
      printData(io, listed, {
        json: options.json,
        human: () => describeAgents(listed.agents, listed.removed, listed.stopped),
      });
    });
}
