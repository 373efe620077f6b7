import { describe, expect, it } from "vitest";
import { splitFrontMatter } from "./front-matter.js";

describe("splitFrontMatter", () => {
  it("splits the block between two --- lines from the body", () => {
    expect(splitFrontMatter("---\ntitle: Build\nwhen: daily\n---\n\nDo it.\n")).toEqual({
      frontMatter: "title: Build\nwhen: daily",
      body: "\nDo it.\n",
    });
  });

  it("does not end the block at a value that ends in ---", () => {
    expect(splitFrontMatter("---\ntitle: Build ---\nwhen: daily\n---\nBody\n")).toEqual({
      frontMatter: "title: Build ---\nwhen: daily",
      body: "Body\n",
    });
  });

  it("does not end the block at a line that merely starts with ---", () => {
    expect(splitFrontMatter("---\na: 1\n----\n---- b\n---\nBody")).toEqual({
      frontMatter: "a: 1\n----\n---- b",
      body: "Body",
    });
  });

  it("accepts CRLF, a byte-order mark, trailing spaces on a fence and an empty block", () => {
    expect(splitFrontMatter("\uFEFF---  \r\nname: x\r\n--- \r\nBody\r\n")).toEqual({
      frontMatter: "name: x",
      body: "Body\r\n",
    });
    expect(splitFrontMatter("---\n---\nBody")).toEqual({ frontMatter: "", body: "Body" });
    expect(splitFrontMatter("---\na: 1\n---")).toEqual({ frontMatter: "a: 1", body: "" });
  });

  it("returns undefined without an opening or a closing fence", () => {
    expect(splitFrontMatter("title: x\n---\nBody")).toBeUndefined();
    expect(splitFrontMatter("--- title\na: 1\n---\n")).toBeUndefined();
    expect(splitFrontMatter("---\ntitle: never closed ---\n")).toBeUndefined();
    expect(splitFrontMatter("")).toBeUndefined();
  });
});
