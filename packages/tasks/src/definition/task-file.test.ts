import { describe, expect, it } from "vitest";
import { editTaskFile, parseTaskFile, renderTaskFile } from "./task-file.js";
import type { TaskId } from "./task-id.js";

const options = { id: "report" as TaskId, path: "/p/.downcity/task/report/task.md", defaultTimezone: "UTC" };

describe("task files", () => {
  it("parses front matter and body, with defaults", () => {
    const parsed = parseTaskFile(
      '---\ntitle: Daily report\nwhen: "@daily"\nnotify: console:main\n---\n\nSummarise yesterday.\n',
      options,
    );
    expect(parsed.task).toMatchObject({
      id: "report",
      title: "Daily report",
      when: "@daily",
      timezone: "UTC",
      notify: "console:main",
      status: "enabled",
      catchUp: "once",
      body: "Summarise yesterday.",
    });
  });

  it("round-trips what renderTaskFile writes", () => {
    const text = renderTaskFile(
      { title: "T", when: "*/5 * * * *", timezone: "Europe/Berlin", catchUp: "skip" },
      "Do it.",
    );
    expect(parseTaskFile(text, options).task).toMatchObject({
      when: "*/5 * * * *",
      timezone: "Europe/Berlin",
      catchUp: "skip",
      body: "Do it.",
    });
  });

  it("reports malformed files with path, field and reason", () => {
    const problems = (text: string) => parseTaskFile(text, options).problems;
    expect(problems("no front matter")?.[0]).toMatchObject({ path: options.path, field: "front matter" });
    expect(problems("---\ntitle: x\nwhen: @daily\n---\nbody")?.[0]?.reason).toMatch(
      /Quote values that start with @/,
    );
    expect(problems("---\nwhen: 0 9 * * *\n---\nbody")?.[0]).toMatchObject({ field: "title" });
    expect(problems("---\ntitle: x\nwhen: 0 99 * * *\n---\nbody")?.[0]).toMatchObject({
      field: "when",
      reason: expect.stringContaining('"0 99 * * *"'),
    });
    expect(problems("---\ntitle: x\nwhen: 0 9 * * *\ntimezone: Mars/Base\n---\nbody")?.[0]).toMatchObject({
      field: "timezone",
    });
    expect(problems("---\ntitle: x\nwhen: 0 9 * * *\nstatus: maybe\n---\nbody")?.[0]).toMatchObject({
      field: "status",
    });
    expect(problems("---\ntitle: x\nwhen: 0 9 * * *\n---\n\n")?.[0]).toMatchObject({ field: "body" });
  });

  it("keeps reading the front matter past a value that ends in ---", () => {
    const text = '---\ntitle: Build ---\nwhen: "@daily"\nnotify: console:main\n---\n\nBuild it.\n';
    expect(parseTaskFile(text, options).task).toMatchObject({
      title: "Build ---",
      when: "@daily",
      notify: "console:main",
      body: "Build it.",
    });
    const edited = editTaskFile(text, { status: "paused" });
    expect(parseTaskFile(edited, options).task).toMatchObject({ title: "Build ---", status: "paused" });
  });

  it("edits fields while keeping comments and unknown keys", () => {
    const text = "---\n# owner: ops\ntitle: x\nwhen: 0 9 * * *\nowner: ops\n---\n\nBody stays.\n";
    const edited = editTaskFile(text, { status: "paused", title: "y" });
    expect(edited).toContain("# owner: ops");
    expect(edited).toContain("owner: ops");
    expect(edited).toContain("status: paused");
    expect(edited).toContain("Body stays.");
    expect(parseTaskFile(edited, options).task).toMatchObject({ title: "y", status: "paused" });
    expect(parseTaskFile(editTaskFile(edited, {}, "New body"), options).task?.body).toBe("New body");
  });
});
