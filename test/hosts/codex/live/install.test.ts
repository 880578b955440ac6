import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasOurHook, hookCommand, install, trustText, uninstall } from "../../../../src/hosts/codex/live/install.ts";
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
    expect(r.createdHooksFile).toBe(false);
    const written = JSON.parse(readFileSync(join(world.home, "hooks.json"), "utf8"));
    expect(written.hooks.PreCompact[0]).toEqual(USER_HOOKS.hooks.PreCompact[0]);
    expect(written.hooks.PreCompact).toHaveLength(2);
    expect(written.hooks.Stop).toEqual(USER_HOOKS.hooks.Stop);
    // installing again replaces bc's group instead of adding a second one
    await install({ codexHome: world.home, trust: false, command: COMMAND });
    expect(JSON.parse(readFileSync(join(world.home, "hooks.json"), "utf8")).hooks.PreCompact).toHaveLength(2);
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedHook: true, removedHooksFile: false });
    expect(JSON.parse(readFileSync(join(world.home, "hooks.json"), "utf8"))).toEqual(USER_HOOKS);
  });

  test("uninstall removes exactly the trust table bc appended, nothing else of config.toml", async () => {
    world = makeHome();
    const user = 'model = "gpt-5"\n\n[hooks.state."/x/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:aa"\n';
    const text = trustText(`${join(world.home, "hooks.json")}:pre_compact:0:0`, "sha256:bb");
    writeFileSync(join(world.home, "config.toml"), user + text);
    mkdirSync(join(world.home, "better-compaction"), { recursive: true });
    writeFileSync(join(world.home, "better-compaction", "install.json"), JSON.stringify({ command: COMMAND, createdHooksFile: true, trustText: text }));
    writeFileSync(join(world.home, "hooks.json"), JSON.stringify({ hooks: { PreCompact: [{ hooks: [{ type: "command", command: COMMAND }] }] } }));
    expect(uninstall({ codexHome: world.home })).toMatchObject({ removedHook: true, removedHooksFile: true, removedTrust: true });
    expect(readFileSync(join(world.home, "config.toml"), "utf8")).toBe(user);
    expect((Bun.TOML.parse(text) as any).hooks.state[`${join(world.home, "hooks.json")}:pre_compact:0:0`]).toEqual({ trusted_hash: "sha256:bb" });
  });

  test("a hooks.json bc cannot read is left alone", async () => {
    world = makeHome();
    writeFileSync(join(world.home, "hooks.json"), "{ not json");
    await expect(install({ codexHome: world.home, trust: false, command: COMMAND })).rejects.toThrow(/not a JSON object/);
    expect(readFileSync(join(world.home, "hooks.json"), "utf8")).toBe("{ not json");
  });

  test("bc's hook is recognised by its command, quoted paths included", () => {
    const cmd = hookCommand(["/path with space/bc"]);
    expect(cmd).toBe("'/path with space/bc' codex-hook precompact");
    expect(hasOurHook({ hooks: { PreCompact: [{ hooks: [{ type: "command", command: cmd }] }] } })).toBe(true);
    expect(hasOurHook(USER_HOOKS)).toBe(false);
  });
});
