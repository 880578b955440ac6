// The rules `bc claude install --allow-recall` adds to Claude Code's settings.json, and
// `bc claude uninstall` removes: the file is changed in place, as the user keeps it.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allowRecall, disallowRecall, RECALL_RULES } from "../../../src/hosts/recall/permission.ts";

const dir = mkdtempSync(join(tmpdir(), "bc-permission-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settings = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

test("a settings.json only its owner may read (it can hold an API key) stays so", () => {
  const path = settings("private.json", JSON.stringify({ env: { ANTHROPIC_API_KEY: "sk-secret" } }));
  chmodSync(path, 0o600);
  expect(allowRecall(path).added).toBe(true);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(disallowRecall(path).removed).toBe(true);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ env: { ANTHROPIC_API_KEY: "sk-secret" }, permissions: { allow: [] } });
});

test("a settings.json that is a symlink (dotfiles) stays a link: its target gets the rules", () => {
  mkdirSync(join(dir, "dotfiles"));
  const target = settings("dotfiles/settings.json", JSON.stringify({ model: "opus" }));
  const link = join(dir, "linked.json");
  symlinkSync(target, link);
  expect(allowRecall(link).added).toBe(true);
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(JSON.parse(readFileSync(target, "utf8")).permissions.allow).toEqual([...RECALL_RULES]);
  expect(disallowRecall(link).removed).toBe(true);
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(JSON.parse(readFileSync(target, "utf8")).permissions.allow).toEqual([]);
});

test("a settings.json that starts with a byte-order mark is read (as Claude Code reads it), and keeps its mark", () => {
  const path = settings("bom.json", `\uFEFF${JSON.stringify({ model: "opus" })}`);
  expect(allowRecall(path).added).toBe(true);
  const text = readFileSync(path, "utf8");
  expect(text.startsWith("\uFEFF")).toBe(true);
  expect(JSON.parse(text.slice(1)).permissions.allow).toEqual([...RECALL_RULES]);
  expect(disallowRecall(path).removed).toBe(true);
  expect(disallowRecall(settings("bom-plain.json", `\uFEFF${JSON.stringify({ model: "opus" })}`)).removed).toBe(false);
});
