import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasOurHook, hookCommand, install, status, trustText, uninstall, withOurHook } from "../../../../src/hosts/codex/live/install.ts";
import { CODEX_LIVE_VERSIONS } from "../../../../src/hosts/tested-versions.ts";
import { BcError } from "../../../../src/util/errors.ts";
import { evalUnderFileSizeLimit, FILE_SIZE_LIMIT, folderContent } from "../../../support/file-size-limit.ts";
import { type Home, makeHome } from "./support.ts";

let world: Home | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const COMMAND = "/opt/bc/bc codex-hook precompact";
const USER_HOOKS = {
  hooks: {
    PreCompact: [{ matcher: "manual", hooks: [{ type: "command", command: "/home/me/save-notes.sh", timeout: 5 }] }],
    Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
  },
  other: { keep: true },
};

/**
 * $CODEX_HOME as `bc codex install --trust` leaves it, bc's trust table after `config` in
 * config.toml, each file as bc writes it: the table's text.
 */
const installedTrusted = (home: string, config: string): string => {
  const text = trustText(`${join(home, "hooks.json")}:pre_compact:0:0`, "sha256:bb");
  writeFileSync(join(home, "config.toml"), config + text);
  mkdirSync(join(home, "better-compaction"), { recursive: true });
  writeFileSync(join(home, "better-compaction", "install.json"), `${JSON.stringify({ command: COMMAND, createdHooksFile: true, trustText: text }, null, 2)}\n`);
  writeFileSync(join(home, "hooks.json"), `${JSON.stringify(withOurHook(undefined, COMMAND), null, 2)}\n`);
  return text;
};

describe("bc codex install / uninstall", () => {
  test("a new hooks.json: written with bc's hook, removed whole by uninstall", async () => {
    world = makeHome();
    const r = await install({ codexHome: world.home, trust: false, command: COMMAND });
    expect(r).toMatchObject({ createdHooksFile: true, trusted: false });
    expect(r.trustHint).toContain("/hooks");
    const written = JSON.parse(readFileSync(join(world.home, "hooks.json"), "utf8"));
    expect(written.hooks.PreCompact).toEqual([
      { hooks: [{ type: "command", command: COMMAND, timeout: 30, statusMessage: "better-compaction: planning the pruned history" }] },
    ]);
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedHook: true, removedHooksFile: true, removedTrust: false });
    expect(existsSync(join(world.home, "hooks.json"))).toBe(false);
  });

  test("a user's hooks.json: their hooks untouched, bc's group added last, and uninstall gives their hooks back", async () => {
    world = makeHome();
    writeFileSync(join(world.home, "hooks.json"), JSON.stringify(USER_HOOKS));
    const r = await install({ codexHome: world.home, trust: false, command: COMMAND });
    expect(r).toMatchObject({ createdHooksFile: false, alreadyThere: false });
    const written = JSON.parse(readFileSync(join(world.home, "hooks.json"), "utf8"));
    expect(written.hooks.PreCompact[0]).toEqual(USER_HOOKS.hooks.PreCompact[0]);
    expect(written.hooks.PreCompact).toHaveLength(2);
    expect(written.hooks.Stop).toEqual(USER_HOOKS.hooks.Stop);
    // installing again replaces bc's group instead of adding a second one, and says it was there
    expect(await install({ codexHome: world.home, trust: false, command: COMMAND })).toMatchObject({ alreadyThere: true });
    expect(JSON.parse(readFileSync(join(world.home, "hooks.json"), "utf8")).hooks.PreCompact).toHaveLength(2);
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedHook: true, removedHooksFile: false });
    expect(JSON.parse(readFileSync(join(world.home, "hooks.json"), "utf8"))).toEqual(USER_HOOKS);
  });

  test("uninstall removes exactly the trust table bc appended, nothing else of config.toml", async () => {
    world = makeHome();
    const user = 'model = "gpt-5"\n\n[hooks.state."/x/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:aa"\n';
    const text = installedTrusted(world.home, user);
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedHook: true, removedHooksFile: true, removedTrust: true });
    expect(readFileSync(join(world.home, "config.toml"), "utf8")).toBe(user);
    expect((Bun.TOML.parse(text) as any).hooks.state[`${join(world.home, "hooks.json")}:pre_compact:0:0`]).toEqual({ trusted_hash: "sha256:bb" });
  });

  test("a hooks.json bc cannot read is left alone", async () => {
    world = makeHome();
    writeFileSync(join(world.home, "hooks.json"), "{ not json");
    await expect(install({ codexHome: world.home, trust: false, command: COMMAND })).rejects.toThrow(/hooks\.json: not valid JSON/);
    expect(readFileSync(join(world.home, "hooks.json"), "utf8")).toBe("{ not json");
  });

  test("a PreCompact that is no list of groups is refused, not replaced: the user's hook stays, nothing is written", async () => {
    world = makeHome();
    const path = join(world.home, "hooks.json");
    for (const preCompact of [{ hooks: [{ type: "command", command: "echo mine" }] }, "echo mine"]) {
      const text = JSON.stringify({ hooks: { PreCompact: preCompact } });
      writeFileSync(path, text);
      const err = await install({ codexHome: world.home, trust: false, command: COMMAND }).catch((e) => e);
      expect(err).toBeInstanceOf(BcError);
      expect(err.message).toBe(`${path}: "hooks.PreCompact" is not a list of hook groups`);
      expect(readFileSync(path, "utf8")).toBe(text);
      expect(existsSync(join(world.home, "better-compaction", "install.json"))).toBe(false);
    }
  });

  test("status says where the codex asked stands against the versions the live integration is tested with", async () => {
    world = makeHome();
    const newest = [...CODEX_LIVE_VERSIONS].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1)!;
    for (const [version, said] of [
      [CODEX_LIVE_VERSIONS[0]!, "tested"],
      ["9.0.0", `newer than bc is tested with (up to ${newest})`],
    ] as const) {
      const codex = join(world.root, `codex-${version}`);
      writeFileSync(codex, `#!/bin/sh\necho "codex-cli ${version}"\n`);
      chmodSync(codex, 0o755);
      expect((await status({ codexHome: world.home, codex })).codex).toEqual({ path: codex, version, tested: said });
    }
    // one that cannot say its version: nothing said
    expect((await status({ codexHome: world.home, codex: join(world.root, "no-such-codex") })).codex).toEqual({ path: join(world.root, "no-such-codex") });
  });

  test("status reads bc's command past groups of other shapes (null, no hooks) beside bc's", async () => {
    world = makeHome();
    const path = join(world.home, "hooks.json");
    writeFileSync(path, JSON.stringify({ hooks: { PreCompact: [null, {}, { hooks: [null, { type: "command", command: COMMAND }] }] } }));
    const s = await status({ codexHome: world.home, codex: join(world.root, "no-such-codex") });
    expect(s).toMatchObject({ installed: true, command: COMMAND });
  });

  test("an install.json bc cannot read: uninstall removes the hook and says a trust entry it may have written is left, config.toml untouched", async () => {
    world = makeHome();
    const config = 'model = "gpt-5"\n';
    installedTrusted(world.home, config);
    const trusted = readFileSync(join(world.home, "config.toml"), "utf8");
    const state = join(world.home, "better-compaction", "install.json");
    writeFileSync(state, "garbage");
    const r = uninstall({ codexHome: world.home });
    expect(r).toMatchObject({ removedHook: true, removedTrust: false, stateProblem: `${state}: not bc's record of what it installed (damaged)` });
    expect(readFileSync(join(world.home, "config.toml"), "utf8")).toBe(trusted);
  });

  test("bc's hook is recognised by its command, quoted paths included", () => {
    const cmd = hookCommand(["/path with space/bc"]);
    expect(cmd).toBe("'/path with space/bc' codex-hook precompact");
    expect(hasOurHook({ hooks: { PreCompact: [{ hooks: [{ type: "command", command: cmd }] }] } })).toBe(true);
    expect(hasOurHook(USER_HOOKS)).toBe(false);
  });
});

/**
 * A codex whose app-server answers hooks/list as Codex does for bc's hook: its key names its group's
 * place in PreCompact, its hash is HASH, and its status is what config.toml says (a config.toml
 * that is no TOML fails the request, as it fails codex).
 */
const HASH = "sha256:new";
const fakeCodex = (dir: string): string => {
  const path = join(dir, "fake-codex");
  writeFileSync(
    path,
    `#!${process.execPath}
const home = process.env.CODEX_HOME;
const fs = require("node:fs");
const answer = (id, result, error) => process.stdout.write(JSON.stringify(error ? { id, error } : { id, result }) + "\\n");
let buf = "";
process.stdin.on("data", (chunk) => {
  buf += chunk;
  for (let nl = buf.indexOf("\\n"); nl !== -1; nl = buf.indexOf("\\n")) {
    const msg = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    if (msg.method === "initialize") answer(msg.id, { userAgent: "fake" });
    if (msg.method !== "hooks/list") continue;
    const hooksPath = home + "/hooks.json";
    const groups = JSON.parse(fs.readFileSync(hooksPath, "utf8")).hooks.PreCompact;
    const at = groups.findIndex((g) => g.hooks.some((h) => h.command.endsWith("codex-hook precompact")));
    const key = hooksPath + ":pre_compact:" + at + ":0";
    let state = {};
    try {
      state = fs.existsSync(home + "/config.toml") ? (Bun.TOML.parse(fs.readFileSync(home + "/config.toml", "utf8")).hooks?.state ?? {}) : {};
    } catch (e) {
      answer(msg.id, undefined, { code: -32000, message: "config.toml: " + e.message });
      continue;
    }
    const trustStatus = state[key] === undefined ? "untrusted" : state[key].trusted_hash === "${HASH}" ? "trusted" : "modified";
    answer(msg.id, { data: [{ hooks: [{ key, currentHash: "${HASH}", trustStatus, command: groups[at].hooks[0].command, sourcePath: hooksPath }] }] });
  }
});
`,
  );
  chmodSync(path, 0o755);
  return path;
};

describe("bc codex install --trust", () => {
  test("trusts the hook, and a reinstall replaces bc's earlier trust table in place of adding a second", async () => {
    world = makeHome();
    const codex = fakeCodex(world.root);
    const cfg = join(world.home, "config.toml");
    writeFileSync(cfg, 'model = "gpt-5"\n');
    expect(await install({ codexHome: world.home, trust: true, codex, command: COMMAND })).toMatchObject({ trusted: true });
    const key = `${join(world.home, "hooks.json")}:pre_compact:0:0`;
    // bc's command changes (bc moved): the table bc wrote is for the old hash
    writeFileSync(cfg, `model = "gpt-5"\n${trustText(key, "sha256:old")}`);
    const state = JSON.parse(readFileSync(join(world.home, "better-compaction", "install.json"), "utf8"));
    writeFileSync(join(world.home, "better-compaction", "install.json"), JSON.stringify({ ...state, trustText: trustText(key, "sha256:old") }));
    expect(await install({ codexHome: world.home, trust: true, codex, command: COMMAND })).toMatchObject({ trusted: true });
    expect(readFileSync(cfg, "utf8")).toBe(`model = "gpt-5"\n${trustText(key, HASH)}`);
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedTrust: true });
    expect(readFileSync(cfg, "utf8")).toBe('model = "gpt-5"\n');
  });

  test("a config.toml bc created for its trust table goes with it at uninstall; one the user wrote in since stays, without bc's table", async () => {
    world = makeHome();
    const codex = fakeCodex(world.root);
    const cfg = join(world.home, "config.toml");
    expect(existsSync(cfg)).toBe(false);
    expect(await install({ codexHome: world.home, trust: true, codex, command: COMMAND })).toMatchObject({ trusted: true });
    // a reinstall keeps knowing that bc created the file
    await install({ codexHome: world.home, trust: true, codex, command: COMMAND });
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedTrust: true });
    expect(existsSync(cfg)).toBe(false);
    await install({ codexHome: world.home, trust: true, codex, command: COMMAND });
    writeFileSync(cfg, `${readFileSync(cfg, "utf8")}model = "gpt-5"\n`);
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedTrust: true });
    expect(readFileSync(cfg, "utf8")).toBe('model = "gpt-5"\n');
  });

  test("a trust table bc did not write (codex's /hooks) is left alone: no second table of that name, config.toml unchanged", async () => {
    world = makeHome();
    const codex = fakeCodex(world.root);
    const cfg = join(world.home, "config.toml");
    await install({ codexHome: world.home, trust: false, command: COMMAND });
    const approved = `model = "gpt-5"\n\n[hooks.state."${join(world.home, "hooks.json")}:pre_compact:0:0"]\ntrusted_hash = "sha256:old"\n`;
    writeFileSync(cfg, approved);
    const err = await install({ codexHome: world.home, trust: true, codex, command: COMMAND }).catch((e) => e);
    expect(err).toBeInstanceOf(BcError);
    expect(err.message).toContain("already holds a trust entry for bc's hook that bc did not write (status: modified)");
    expect(readFileSync(cfg, "utf8")).toBe(approved);
  });

  test("a codex named that is not there: refused before anything is written, and bc's earlier trust table is kept", async () => {
    world = makeHome();
    const cfg = join(world.home, "config.toml");
    await install({ codexHome: world.home, trust: true, codex: fakeCodex(world.root), command: COMMAND });
    const trusted = readFileSync(cfg, "utf8");
    const before = folderContent(world.home);
    const err = await install({ codexHome: world.home, trust: true, codex: join(world.root, "no-such-codex"), command: COMMAND }).catch((e) => e);
    expect(err).toBeInstanceOf(BcError);
    expect(err.message).toBe(`--codex ${join(world.root, "no-such-codex")}: no such program`);
    expect(folderContent(world.home)).toEqual(before);
    expect(readFileSync(cfg, "utf8")).toBe(trusted);
    // and uninstall still removes it: it is still bc's
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedTrust: true });
    // bc created config.toml for its table: it goes with it
    expect(existsSync(cfg)).toBe(false);
    const s = await status({ codexHome: world.home, codex: join(world.root, "no-such-codex") });
    expect(s.trusted).toBe(false);
  });

  test("a codex that fails to answer (it cannot read config.toml): the error says bc's hook is in hooks.json, untrusted, and what to look at", async () => {
    world = makeHome();
    const cfg = join(world.home, "config.toml");
    writeFileSync(cfg, 'model = "gpt-5\n');
    const err = await install({ codexHome: world.home, trust: true, codex: fakeCodex(world.root), command: COMMAND }).catch((e) => e);
    expect(err).toBeInstanceOf(BcError);
    expect(err.message).toEndWith(
      `; bc's hook is in ${join(world.home, "hooks.json")}, untrusted: approve it in codex's /hooks, or 'bc codex uninstall' removes it`,
    );
    expect(hasOurHook(JSON.parse(readFileSync(join(world.home, "hooks.json"), "utf8")))).toBe(true);
    expect(readFileSync(cfg, "utf8")).toBe('model = "gpt-5\n');
  });

  test("status says why the trust is unknown when codex cannot be asked", async () => {
    world = makeHome();
    await install({ codexHome: world.home, trust: false, command: COMMAND });
    const s = await status({ codexHome: world.home, codex: join(world.root, "no-such-codex") });
    expect(s).toMatchObject({ installed: true, trusted: "unknown" });
    expect(s.trustUnknown).toStartWith(`cannot ask ${join(world.root, "no-such-codex")} for bc's hook`);
  });
});

describe("bc's group keeps its place (Codex's trust key for a hook names its group's place)", () => {
  test("a reinstall replaces bc's group where it is; the user's groups keep their places", () => {
    const user = { hooks: [{ type: "command", command: "/home/me/save-notes.sh" }] };
    const first = withOurHook({ hooks: { PreCompact: [user] } }, COMMAND);
    const mine = first.hooks.PreCompact[1];
    // the user adds a group after bc's
    const later = { hooks: [{ type: "command", command: "/home/me/later.sh" }] };
    const again = withOurHook({ hooks: { PreCompact: [user, mine, later] } }, "/new/bc codex-hook precompact");
    expect(again.hooks.PreCompact.map((g: any) => g.hooks[0].command)).toEqual([
      "/home/me/save-notes.sh",
      "/new/bc codex-hook precompact",
      "/home/me/later.sh",
    ]);
  });

  test("uninstall says how many groups after bc's moved up a place", async () => {
    world = makeHome();
    await install({ codexHome: world.home, trust: false, command: COMMAND });
    const path = join(world.home, "hooks.json");
    const v = JSON.parse(readFileSync(path, "utf8"));
    v.hooks.PreCompact.push({ hooks: [{ type: "command", command: "/home/me/later.sh" }] });
    writeFileSync(path, JSON.stringify(v));
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedHook: true, movedGroups: 1 });
  });
});

/**
 * `call` (an expression over install.ts's exports, `m`) in a child process that no file may grow
 * past FILE_SIZE_LIMIT in: the error it ends with, or "ok".
 */
const midway = (call: string): string[] =>
  evalUnderFileSizeLimit(`const m = await import(${JSON.stringify(join(import.meta.dir, "../../../../src/hosts/codex/live/install.ts"))});
try { await (${call}); console.log("ok"); } catch (e) { console.log(e.message); }`);
const TOO_LARGE = "cannot be written (larger than the system lets a file grow)";

// a write that fails part way (a full disk, a killed install) leaves the file Codex reads as it was
describe.skipIf(process.platform === "win32")("a write that fails midway leaves the old file byte for byte, and nothing beside it", () => {
  test("hooks.json, at install and at uninstall", async () => {
    world = makeHome();
    const path = join(world.home, "hooks.json");
    writeFileSync(path, JSON.stringify({ ...USER_HOOKS, other: { notes: "n".repeat(FILE_SIZE_LIMIT) } }));
    const untouched = folderContent(world.home);
    const installing = midway(`m.install({ codexHome: ${JSON.stringify(world.home)}, trust: false, command: ${JSON.stringify(COMMAND)} })`);
    expect(folderContent(world.home)).toEqual(untouched);
    expect(installing).toEqual([`${path}: ${TOO_LARGE}`]);
    await install({ codexHome: world.home, trust: false, command: COMMAND });
    const installed = folderContent(world.home);
    const uninstalling = midway(`m.uninstall({ codexHome: ${JSON.stringify(world.home)} })`);
    expect(folderContent(world.home)).toEqual(installed);
    expect(uninstalling).toEqual([`${path}: ${TOO_LARGE}`]);
  });

  test("install.json, whose record of bc's trust table is what lets uninstall remove it", async () => {
    world = makeHome();
    // a $CODEX_HOME at a long path: the trust key install.json records names it, hooks.json does not
    const home = join(world.root, "a".repeat(100), "b".repeat(100), "c".repeat(100), "d".repeat(100), "codex-home");
    mkdirSync(home, { recursive: true });
    installedTrusted(home, "");
    const installed = folderContent(home);
    // installed again (bc upgraded in place): hooks.json fits in the limit, install.json does not
    const said = midway(`m.install({ codexHome: ${JSON.stringify(home)}, trust: false, command: ${JSON.stringify(COMMAND)} })`);
    expect(folderContent(home)).toEqual(installed);
    expect(said).toEqual([`${join(home, "better-compaction", "install.json")}: ${TOO_LARGE}`]);
    expect(uninstall({ codexHome: home })).toMatchObject({ removedHook: true, removedTrust: true });
  });

  test("install.json, as --trust records the table it just added: config.toml is put back as it was, so no table is left that uninstall does not know", async () => {
    world = makeHome();
    // a $CODEX_HOME at a path such that config.toml with bc's table (which names it once) fits in the
    // limit, and install.json recording that table (the command besides) does not
    const part = Math.ceil((400 - world.root.length - "/codex-home".length) / 4) - 1;
    const home = join(world.root, ..."abcd".split("").map((c) => c.repeat(part)), "codex-home");
    mkdirSync(home, { recursive: true });
    const codex = fakeCodex(world.root);
    const cfg = join(home, "config.toml");
    const installJson = join(home, "better-compaction", "install.json");
    for (const user of ['model = "gpt-5"\n', undefined]) {
      rmSync(cfg, { force: true });
      if (user !== undefined) writeFileSync(cfg, user);
      const said = midway(
        `m.install({ codexHome: ${JSON.stringify(home)}, trust: true, codex: ${JSON.stringify(codex)}, command: ${JSON.stringify(COMMAND)} })`,
      );
      expect(said).toEqual([`${installJson}: ${TOO_LARGE}; config.toml was put back as it was, without bc's trust entry`]);
      // the write that failed was the last; the one before it took the table
      expect(Buffer.byteLength(readFileSync(installJson, "utf8"))).toBeLessThan(FILE_SIZE_LIMIT);
      expect(user === undefined ? existsSync(cfg) : readFileSync(cfg, "utf8")).toBe(user ?? false);
      expect(await status({ codexHome: home, codex })).toMatchObject({ installed: true, trusted: false, trustStatus: "untrusted" });
      expect(uninstall({ codexHome: home })).toMatchObject({ removedHook: true, removedTrust: false });
      expect(user === undefined ? existsSync(cfg) : readFileSync(cfg, "utf8")).toBe(user ?? false);
      expect(readdirSync(home).sort()).toEqual(user === undefined ? ["better-compaction"] : ["better-compaction", "config.toml"]);
    }
  });

  test("config.toml, as --trust adds bc's table and as uninstall takes it out", async () => {
    world = makeHome();
    const cfg = join(world.home, "config.toml");
    const user = `model = "gpt-5"\n${Array.from({ length: 40 }, (_, i) => `[profiles.p${i}]\nmodel = "gpt-5"\n`).join("")}`;
    writeFileSync(cfg, user);
    const codex = fakeCodex(world.root);
    const trusting = midway(
      `m.install({ codexHome: ${JSON.stringify(world.home)}, trust: true, codex: ${JSON.stringify(codex)}, command: ${JSON.stringify(COMMAND)} })`,
    );
    expect(readFileSync(cfg, "utf8")).toBe(user);
    expect(readdirSync(world.home).sort()).toEqual(["better-compaction", "config.toml", "hooks.json"]);
    expect(trusting).toEqual([`${cfg}: ${TOO_LARGE}`]);
    installedTrusted(world.home, user);
    const trusted = folderContent(world.home);
    const uninstalling = midway(`m.uninstall({ codexHome: ${JSON.stringify(world.home)} })`);
    // hooks.json, which bc made, is gone; config.toml is as it was, bc's table still in it
    const { "hooks.json": _, ...rest } = trusted;
    expect(folderContent(world.home)).toEqual(rest);
    expect(uninstalling).toEqual([`${cfg}: ${TOO_LARGE}`]);
  });
});
