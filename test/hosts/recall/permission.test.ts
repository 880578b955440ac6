// The rules `bc claude install --allow-recall` adds to Claude Code's settings.json, and
// `bc claude uninstall` removes: the file is changed in place, as the user keeps it.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allowRecall, disallowRecall, RECALL_RULES } from "../../../src/hosts/recall/permission.ts";
import { evalUnderFileSizeLimit, FILE_SIZE_LIMIT, folderContent } from "../../support/file-size-limit.ts";

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

// a real failure in the middle of the write (a full disk): Claude Code must still read the user's settings
test.skipIf(process.platform === "win32")("a write that fails midway leaves settings.json byte for byte, and nothing beside it", () => {
  const d = join(dir, "midway");
  mkdirSync(d);
  const env = { ANTHROPIC_API_KEY: "sk-secret", NOTES: "n".repeat(FILE_SIZE_LIMIT) };
  settings("midway/allow.json", JSON.stringify({ env }));
  settings("midway/disallow.json", JSON.stringify({ env, permissions: { allow: [...RECALL_RULES] } }));
  const before = folderContent(d);
  const said = evalUnderFileSizeLimit(
    `const { allowRecall, disallowRecall } = await import(${JSON.stringify(join(import.meta.dir, "../../../src/hosts/recall/permission.ts"))});
for (const change of [() => allowRecall("allow.json"), () => disallowRecall("disallow.json")]) {
  try { change(); console.log("ok"); } catch (e) { console.log(e.message); }
}`,
    d,
  );
  expect(folderContent(d)).toEqual(before);
  expect(said).toEqual([
    "allow.json: cannot be written (larger than the system lets a file grow)",
    "disallow.json: cannot be written (larger than the system lets a file grow)",
  ]);
});
