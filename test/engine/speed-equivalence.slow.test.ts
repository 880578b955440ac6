// The engine's fast paths against the plain definitions they replace: the candidate-token
// scan against extractTokens on the whole text, the quote check against its full scan, and
// whole Plans (JSON) of the fast mode against the "reference" mode, on adversarial strings,
// seeded random text and generated sessions (every corpus session: speed-equivalence.corpus.test.ts).
import { describe, expect, test } from "bun:test";
import { CandidateMatcher } from "../../src/engine/lookup/candidate-matcher.ts";
import { buildFastQuoteTables, findQuoteFast, isSpace } from "../../src/engine/lookup/fast-quotes.ts";
import { forEachMessagePart, messageText, usesTokens } from "../../src/engine/lookup/lookup.ts";
import { PathPlaces, anchorSpans, hashRange, joinHash, pathEdgesFit } from "../../src/engine/lookup/token-places.ts";
import { buildQuoteTables, findQuote } from "../../src/engine/lookup/quotes.ts";
import { planWith } from "../../src/engine/plan.ts";
import { SessionFacts } from "../../src/engine/session-facts.ts";
import { PATH_RE, extractTokenList, extractTokens } from "../../src/engine/tokens.ts";
import { DEFAULT_OPTIONS, type Message, type Options, type Session } from "../../src/engine/types.ts";
import { SessionBuilder } from "./support/build.ts";
import { Generator, generateSession, prng } from "./support/generate.ts";
import { compactAsItGrows } from "./support/laws.ts";

const ADVERSARIAL = [
  // paths inside identifiers, identifiers inside paths
  "see foo_bar/baz_qux.ts and my-lib/src/index.ts then x.y.z/foo_bar",
  "/repo/src/alpha_module3.ts imports alpha_module3 from ./alpha_module3",
  "pkg/git/internal and pkg/git/internal/config_loader.go:12:5",
  // trailing dots, trailing slashes
  "see /a/b/c. and src/app.ts... then ~/proj/x.ts. and lib/ and lib/util/",
  // unicode
  "файл /tmp/данные.txt и café_au_lait, naïve-string 🚀 launch_rocket_now «quoted_guillemets»",
  "全角スペース　error　全角 processIncomingOrder　/usr/lib/日本/x.py",
  // CRLF
  'line one error: failed\r\nfoo_bar_baz\r\n"crlf quoted text"\r\n12345\r\n',
  // numbers glued to letters
  "abc12345 12345abc v1.2345 $12345 #12345 1234.5678 x_12345 12345_x 0x1234ABCD 98765",
  // quotes
  `"nested 'quote' string" and 'a "b" c d e f g' and \`code span here\` and \\"not a quote start\\"`,
  `prefix"glued string here" "" "" "exactly8" "seven77" x"y z w v u t s"z`,
  `"${"long ".repeat(45)}" '${"x".repeat(200)}' '${"y".repeat(201)}'`,
  `he said "processOrder_v2" then processOrder_v2 and "src/app.ts" then src/app.ts`,
  `"a" "bbbbbbbbbbb" "cccccccccc"d "eeeeeeeeee" "      x      "`,
  `'outer "inner quoted text" outer' and "outer 'inner quoted text' outer" then 'inner quoted text' and "inner quoted text"`,
  '`span \'inner quoted text\' span` x"inner quoted text" \'unclosed "inner quoted text"',
  // error lines
  "Error: something failed here\nTypeError: x is not a function\n  at foo (/app/src/x.js:10:5)",
  '    12→  throw new Error("bad");\n    13→  // no error here? error indeed',
  `${"word ".repeat(80)}error at the end of a very long line`,
  `E${"r".repeat(299)}ror: clipped error line\n${"z".repeat(310)} Error`,
  'Traceback (most recent call last):\n  File "/usr/lib/python3/x.py", line 3\npanic: runtime error: index out of range\nnpm ERR! code ELIFECYCLE',
  "FAILED tests/test_x.py::test_parse - AssertionError\nFAIL src/app.test.ts\nfatal: not a git repository",
  // line-number prefixes
  '    12→foo_bar_baz\n  7→  const x_y_z = 1\n100→"quoted after prefix"\n 3→/abs/path/file.ts',
  // URLs, schemes, home, dot paths
  "https://example.com/a/b?c=d file:///etc/hosts git@github.com:org/repo.git http://x.io/y_z-w",
  "$HOME/.config/app_name/settings.json ../../lib/util.ts ./run.sh @scope/pkg-name/dist/index.js",
  // kebab, camel, flags
  "--no-verify-ssl a-b-c-d-e-f foo--bar_baz foo- -foo-bar getHTTPResponse aB iPhone $jq_var x-$y-z",
  "a_b c-d fooB short_ x__y__z ___init___ __proto__ foo.barBaz_qux",
  // repeated tokens in several kinds and places
  "config_value_x 'config_value_x' \"config_value_x\" /config_value_x/a.ts config_value_x.json",
  "12345 '12345678' \"src/app.ts\" src/app.ts 'src/app.ts'",
  // empty, whitespace, separators only
  "",
  " \n\t\r\n",
  "////....----____$$$$",
];

/** Strings that occur in `text` but are not necessarily tokens: words, pieces of tokens, tokens with a character more or less. */
const decoys = (text: string): string[] => {
  const out = new Set<string>();
  for (const w of text.split(/[^\w$./-]+/)) if (w.length >= 3) out.add(w);
  for (const t of extractTokens(text)) {
    out.add(t.slice(1));
    out.add(t.slice(0, -1));
    out.add(`${t}x`);
    out.add(`x${t}`);
    for (const piece of t.split(/[^\w]+/)) if (piece.length >= 2) out.add(piece);
  }
  for (let i = 0; i + 12 <= text.length; i += 7) out.add(text.slice(i, i + 12));
  return [...out];
};

/** What the fast scan must give: extractTokens, keeping only the candidates. */
const expected = (text: string, candidates: Iterable<string>): string[] => {
  const set = new Set(candidates);
  return extractTokens(text).filter((t) => set.has(t));
};

const ALPHABET = [
  "a",
  "b",
  "Z",
  "q",
  "_",
  "-",
  ".",
  "/",
  "$",
  "@",
  "+",
  "~",
  ":",
  '"',
  "'",
  "`",
  "\\",
  " ",
  " ",
  " ",
  "\n",
  "\r\n",
  "\t",
  "→",
  "1",
  "23",
  "4567",
  "error",
  "Error:",
  "FAILED",
  "foo",
  "Bar",
  "fooBar",
  "src/",
  ".ts",
  ".json",
  "é",
  "日本",
  "🚀",
  "\u00a0",
  "  12→",
  "http://",
  "x_y",
  "-z",
];

const randomText = (rnd: () => number, pieces: number): string => {
  let s = "";
  for (let i = 0; i < pieces; i++) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)]!;
  return s;
};

describe("candidate tokens: the same tokens, in the same order, as extractTokens", () => {
  test("adversarial strings, every token a candidate, with decoys", () => {
    const bad: string[] = [];
    for (const text of ADVERSARIAL) {
      const candidates = [...extractTokens(text), ...decoys(text)];
      const got = new CandidateMatcher(candidates).tokensIn(text);
      if (JSON.stringify(got) !== JSON.stringify(expected(text, candidates))) bad.push(`${JSON.stringify(text)}: ${JSON.stringify(got)}`);
    }
    expect(bad).toEqual([]);
    // the check is not empty: these strings hold tokens of every kind
    expect(new Set(ADVERSARIAL.flatMap((t) => extractTokenList(t).map((k) => k.kind)))).toEqual(
      new Set(["path", "identifier", "number", "quoted", "error-line"]),
    );
  });

  test("adversarial strings against each other's tokens (candidates that occur in other kinds or not at all)", () => {
    const all = ADVERSARIAL.flatMap((t) => [...extractTokens(t), ...decoys(t)]);
    const m = new CandidateMatcher(all);
    const bad = ADVERSARIAL.filter((text) => JSON.stringify(m.tokensIn(text)) !== JSON.stringify(expected(text, all)));
    expect(bad).toEqual([]);
  });

  test("seeded random text over a hostile alphabet", () => {
    const rnd = prng(2024);
    const bad: string[] = [];
    let compared = 0;
    for (let round = 0; round < 60; round++) {
      const texts = Array.from({ length: 8 }, () => randomText(rnd, 40 + Math.floor(rnd() * 200)));
      const candidates = texts.flatMap((t) => [...extractTokens(t), ...decoys(t)]);
      // anchors chosen without a sample (fewest holders) and on the texts themselves (rarest)
      for (const m of [new CandidateMatcher(candidates), new CandidateMatcher(candidates, texts)])
        for (const text of texts) {
          const want = expected(text, candidates);
          compared += want.length;
          const got = m.tokensIn(text);
          if (JSON.stringify(got) !== JSON.stringify(want)) bad.push(`${JSON.stringify(text)}\n  got  ${JSON.stringify(got)}\n  want ${JSON.stringify(want)}`);
        }
    }
    expect(bad.slice(0, 3)).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  });

  test("runs that share a hash (one run to the anchor choice) find only their own candidates", () => {
    // "aa0" and "abP" hash alike: both candidates are anchored on that hash, in one chain
    expect(hashRange("aa0", 0, 3)).toBe(hashRange("abP", 0, 3));
    const candidates = ["aa0/aa0/aa0.md", "abP/abP/abP.md"];
    const texts = ["see abP/abP/abP.md and aa0/aa0/aa0.md", "only abP/abP/abP.md, abP abP", "aa0 aa0/abP/aa0.md"];
    for (const sample of [[], texts]) {
      const m = new CandidateMatcher(candidates, sample);
      expect(texts.map((t) => m.tokensIn(t))).toEqual(texts.map((t) => expected(t, candidates)));
    }
    expect(texts.map((t) => expected(t, candidates))).toEqual([["abP/abP/abP.md", "aa0/aa0/aa0.md"], ["abP/abP/abP.md"], []]);
  });

  test("two runs with one character between: the scan's joined hash is the hash of the stretch", () => {
    const rnd = prng(5);
    const pieces = ["a", "Zq", "core", "_x9", "/", ".", "-", ":", "é", "packages", "12"];
    let pairs = 0;
    for (let i = 0; i < 2000; i++) {
      let c = "";
      for (let k = 1 + Math.floor(rnd() * 8); k > 0; k--) c += pieces[Math.floor(rnd() * pieces.length)];
      const spans = anchorSpans(c);
      for (let k = 0; k < spans.length; k += 2) {
        const [from, to] = [spans[k]!, spans[k + 1]!];
        // a pair: the first run, one character, the second run
        const gap = c.slice(from, to).search(/\W/);
        if (gap === -1) continue;
        pairs++;
        const mid = from + gap;
        expect(joinHash(hashRange(c, from, mid), c.charCodeAt(mid), hashRange(c, mid + 1, to), to - mid - 1)).toBe(hashRange(c, from, to));
      }
    }
    expect(pairs).toBeGreaterThan(500);
  });

  test("candidates whose every run is a common word, anchored on a pair of them, are still found where they are tokens", () => {
    const candidates = ["packages/core/", "packages/core/src/index.ts", "core/src", "src/index.ts", "packages/cli/index.ts", "index.ts"];
    const texts = [
      "packages core src index ts packages/core/src/index.ts and packages/core/ then (src/index.ts) core/src",
      "a/packages/core/src b packages/cli/index.ts: index.ts. packages/core/src/index.tsx",
    ];
    // the sample makes every single word dear: pairs are the cheaper anchors
    const sample = [`${"packages core src index ts cli ".repeat(50)}`];
    for (const m of [new CandidateMatcher(candidates), new CandidateMatcher(candidates, sample)])
      expect(texts.map((t) => m.tokensIn(t))).toEqual(texts.map((t) => expected(t, candidates)));
    expect(texts.map((t) => expected(t, candidates))).toEqual([
      ["packages/core/src/index.ts", "packages/core/", "src/index.ts"],
      ["packages/cli/index.ts", "index.ts"],
    ]);
  });

  test("the edge check before a path scan rules out only places where the scan has no such token", () => {
    const alphabet = "ab.Z09_/-:~@+.ts/md  \n(é";
    const rnd = prng(13);
    const wrong: string[] = [];
    let ruledOut = 0;
    for (let i = 0; i < 600; i++) {
      let text = "";
      for (let k = 1 + Math.floor(rnd() * 40); k > 0; k--) text += alphabet[Math.floor(rnd() * alphabet.length)];
      const tokens = new Map<number, string>();
      for (const m of text.matchAll(PATH_RE)) tokens.set(m.index, m[0].replace(/\.+$/, ""));
      for (let s = 0; s < text.length; s++)
        for (let e = s + 1; e <= text.length; e++) {
          const c = text.slice(s, e);
          if (pathEdgesFit(text, c, s)) continue;
          ruledOut++;
          if (tokens.get(s) === c) wrong.push(`${JSON.stringify(text)} at ${s}: ${JSON.stringify(c)}`);
        }
    }
    expect(wrong).toEqual([]);
    expect(ruledOut).toBeGreaterThan(10_000);
  });

  test("a path, its folders and its file name in one stretch: asked in any order, one kept scan answers as a fresh one", () => {
    const text = "at ./packages/core/src/index.ts:12 (packages/core/src/index.ts.) see packages/core/ then https://x.dev/a/b.md";
    const candidates = [
      "./packages/core/src/index.ts",
      "packages/core/src/index.ts",
      "packages/core",
      "packages/core/",
      "core/src/index.ts",
      "src/index.ts",
      "index.ts",
      "https://x.dev/a/b.md",
      "x.dev/a/b.md",
    ];
    const asks: [string, number][] = [];
    for (const c of candidates) for (let s = text.indexOf(c); s !== -1; s = text.indexOf(c, s + 1)) asks.push([c, s]);
    const rnd = prng(7);
    const kept = new PathPlaces();
    for (let round = 0; round < 20; round++) {
      const order = [...asks].sort(() => rnd() - 0.5);
      expect(order.map(([c, s]) => kept.at(text, c, s))).toEqual(order.map(([c, s]) => new PathPlaces().at(text, c, s)));
    }
    // the paths the tokenizer takes, and no folder of them
    expect(asks.filter(([c, s]) => new PathPlaces().at(text, c, s)).map(([c]) => c)).toEqual([
      "./packages/core/src/index.ts",
      "packages/core/src/index.ts",
      "packages/core/",
      "https://x.dev/a/b.md",
    ]);
    expect(new CandidateMatcher(candidates).tokensIn(text)).toEqual(expected(text, candidates));
  });

  test("a kept path scan, asked at every place of seeded random text, answers as PATH_RE's scan over the whole text", () => {
    // path characters (":" among them: a match may start right after one), marks and what ends a stretch
    const alphabet = "ab.Z09_/-:~@+.ts/md  \n(é";
    const rnd = prng(11);
    const differ: string[] = [];
    for (let i = 0; i < 1500; i++) {
      let text = "";
      for (let k = 1 + Math.floor(rnd() * 60); k > 0; k--) text += alphabet[Math.floor(rnd() * alphabet.length)];
      const matches = new Map<number, string>();
      for (const m of text.matchAll(PATH_RE)) matches.set(m.index, m[0].replace(/\.+$/, ""));
      const kept = new PathPlaces();
      for (let s = 0; s < text.length; s++) {
        const match = matches.get(s);
        for (const c of match === undefined ? [text.slice(s, s + 4)] : [match, match.slice(0, -1)]) {
          if (c === "") continue;
          if (kept.at(text, c, s) !== (c === match)) differ.push(`${JSON.stringify(text)} at ${s}: ${JSON.stringify(c)}`);
        }
      }
    }
    expect(differ).toEqual([]);
  });

  test("no candidates, or none that can be a token", () => {
    expect(new CandidateMatcher([]).tokensIn("src/app.ts fooBar_baz")).toEqual([]);
    expect(new CandidateMatcher(["ab", "   ", "x\ny"]).size).toBe(0);
  });
});

describe("quote check: the fast scan finds the same reply as the full one", () => {
  test("isSpace is JavaScript's \\s", () => {
    const bad: number[] = [];
    for (let c = 0; c < 65_536; c++) if (isSpace(c) !== /\s/.test(String.fromCharCode(c))) bad.push(c);
    expect(bad).toEqual([]);
  });

  test("blocks whose hashes collide are told apart: a reply holding the other one quotes nothing", () => {
    // "Aa" and "BB" hash alike (65 * 31 + 97 = 66 * 31 + 66), and so do two blocks that differ only there
    const common = "prefix shared by both";
    const tail = " and the same tail";
    const result = `${common.slice(0, 20)}Aa${tail}`;
    const reply = `${common.slice(0, 20)}BB${tail}`;
    const msgs: Message[] = [
      { role: "user", kind: "prompt", text: "go", toolCalls: [], toolResults: [] },
      { role: "user", kind: "tool", text: "", toolCalls: [], toolResults: [{ callId: "c", text: result, isError: false, images: 0 }] },
      { role: "assistant", kind: "reply", text: reply, toolCalls: [], toolResults: [] },
    ];
    const q = buildQuoteTables(msgs);
    expect(findQuote(q, result, 1)).toBe(-1);
    expect(findQuoteFast(buildFastQuoteTables(q), result, 1)).toBe(-1);
    // and the same reply with the very block does quote it
    const same = buildQuoteTables([...msgs.slice(0, 2), { ...msgs[2]!, text: result }]);
    expect(findQuoteFast(buildFastQuoteTables(same), result, 1)).toBe(2);
  });

  test("a run of 39, 40 or 41 characters at every offset of the result and every alignment in the reply", () => {
    const rnd = prng(7);
    let text = "";
    while (text.length < 160) text += ALPHABET[Math.floor(rnd() * 20)]!.replace(/\n|\r/g, "");
    const msg = (role: "user" | "assistant", kind: Message["kind"], t: string, results: Message["toolResults"] = []): Message => ({
      role,
      kind,
      text: t,
      toolCalls: [],
      toolResults: results,
    });
    const bad: string[] = [];
    let quoted = 0;
    for (let start = 0; start <= 60; start++)
      for (let pad = 0; pad < 20; pad++)
        for (const len of [39, 40, 41]) {
          const reply = `${"#".repeat(pad)}${text.slice(start, start + len)}${"#".repeat(7)}`;
          const msgs = [
            msg("user", "prompt", "go"),
            msg("user", "tool", "", [{ callId: "c", text, isError: false, images: 0 }]),
            msg("assistant", "reply", reply),
          ];
          const q = buildQuoteTables(msgs);
          const want = findQuote(q, text, 1);
          if (want !== -1) quoted++;
          const got = findQuoteFast(buildFastQuoteTables(q), text, 1);
          if (got !== want) bad.push(`start ${start} pad ${pad} len ${len}: ${got} vs ${want}`);
        }
    expect(bad).toEqual([]);
    expect(quoted).toBeGreaterThan(500);
  });

  test("results quoted at every offset and length, lines with prefixes and odd spaces, much-quoted blocks", () => {
    const rnd = prng(99);
    const bad: string[] = [];
    let quoted = 0;
    for (let round = 0; round < 12; round++) {
      const b = new SessionBuilder();
      b.user("start");
      const results: string[] = [];
      for (let i = 0; i < 25; i++) {
        const lines = Array.from({ length: 3 + Math.floor(rnd() * 30) }, (_, k) => {
          const body = randomText(rnd, 4 + Math.floor(rnd() * 25));
          const r = rnd();
          return r < 0.3 ? `${String(k + 1).padStart(6)}→${body}` : r < 0.4 ? `\u00a0\u3000${body}\u2028 ` : body;
        });
        const text = lines.join(rnd() < 0.2 ? "\r\n" : "\n");
        results.push(text);
        b.call("Read", { file_path: `/f/${i}.ts` }, text);
        if (rnd() < 0.6 && results.length > 0) {
          const src = results[Math.floor(rnd() * results.length)]!;
          const from = Math.floor(rnd() * src.length);
          const len = 30 + Math.floor(rnd() * 40);
          const line = src.split("\n")[Math.floor(rnd() * 3)] ?? "";
          const r = rnd();
          b.assistant(
            r < 0.5 ? `Look: ${src.slice(from, from + len)} ok` : r < 0.8 ? `> ${line}\nand \`${line.trim()}\`` : `${src.slice(from, from + 20)}`.repeat(12),
          );
        }
      }
      const msgs = b.messages;
      const q = buildQuoteTables(msgs);
      const f = buildFastQuoteTables(q);
      msgs.forEach((m, i) => {
        for (const r of m.toolResults)
          for (const after of [i, 0, Math.floor(msgs.length / 2)]) {
            const want = findQuote(q, r.text, after);
            if (want !== -1) quoted++;
            const got = findQuoteFast(f, r.text, after);
            if (got !== want) bad.push(`round ${round} #${i} after ${after}: ${got} vs ${want}`);
          }
      });
    }
    expect(bad).toEqual([]);
    expect(quoted).toBeGreaterThan(50);
  });
});

// ---------------------------------------------------------------- whole plans

const samePlans = (s: Session, label: string, options?: Partial<Options>): string[] => {
  const fast = JSON.stringify(planWith(s, options, "fast"));
  const reference = JSON.stringify(planWith(s, options, "reference"));
  return fast === reference ? [] : [`${label}: plans differ`];
};

const cut = (s: Session, share: number): Session => ({ ...s, messages: s.messages.slice(0, Math.floor(s.messages.length * share)) });

describe("token tables: fast mode equals reference mode", () => {
  test("first and last sightings, and how many results hold each token up to where it is generic", () => {
    const sessions = [1, 2, 3, 4, 5, 6].map((seed) => generateSession({ seed, host: seed % 2 === 0 ? "codex" : "claude", results: 150, outputChars: 800 }));
    // tokens a person names (not a later use), then a reply or an input uses some of them
    const b = new SessionBuilder();
    b.user("look at src/app/main_loop.ts and parseConfig_v2, port 54321");
    b.call("Read", { file_path: "src/app/main_loop.ts" }, "export const parseConfig_v2 = () => 54321;\nconst other_name = 1;");
    b.user("and other_name too");
    b.assistant("parseConfig_v2 returns 54321.");
    sessions.push({ host: "claude", id: "named", messages: b.messages });
    const sorted = (m: ReadonlyMap<string, number>): [string, number][] => [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let compared = 0;
    for (const s of sessions) {
      const fast = new SessionFacts(s, DEFAULT_OPTIONS, "fast").lookup.tokenTables();
      const reference = new SessionFacts(s, DEFAULT_OPTIONS, "reference").lookup.tokenTables();
      expect(sorted(fast.firstSeen)).toEqual(sorted(reference.firstSeen));
      expect(sorted(fast.lastSeen)).toEqual(sorted(reference.lastSeen));
      const limit = DEFAULT_OPTIONS.genericTokenResults + 1;
      const upTo = (m: ReadonlyMap<string, number>) => sorted(new Map([...reference.resultCount.keys()].map((t) => [t, Math.min(limit, m.get(t) ?? 0)])));
      expect(upTo(fast.resultCount)).toEqual(upTo(reference.resultCount));
      compared += reference.lastSeen.size;
      // both modes share sightings(): held here to its definition, written out plainly
      const defined = definedSightings(s.messages);
      expect(sorted(reference.firstSeen)).toEqual(sorted(defined.firstSeen));
      expect(sorted(reference.lastSeen)).toEqual(sorted(defined.lastSeen));
    }
    expect(compared).toBeGreaterThan(100);
    // the person's session, by hand: a person's message is a first sighting, never a later use
    const named = new SessionFacts(sessions.at(-1)!, DEFAULT_OPTIONS, "fast").lookup.tokenTables();
    const reply = b.messages.findIndex((m) => m.role === "assistant" && m.text.startsWith("parseConfig_v2"));
    expect([named.firstSeen.get("parseConfig_v2"), named.lastSeen.get("parseConfig_v2")]).toEqual([0, reply]);
    expect(named.firstSeen.get("other_name")).toBe(b.messages.findIndex((m) => m.text === "and other_name too"));
    expect(named.lastSeen.has("other_name")).toBe(false);
  });
});

test("a message's parts, joined, are its text: prose, each input's strings, its text as written when that differs", () => {
  const call = (id: string, input: unknown, inputText: string) => ({ id, name: "t", input, inputText });
  const patch = "*** Begin Patch\n*** Update File: src/app/main_loop.ts\n-old_name\n+new_name_v2\n*** End Patch";
  const messages: Message[] = [
    {
      role: "assistant",
      kind: "reply",
      text: "see src/app/main_loop.ts",
      toolResults: [],
      toolCalls: [
        call(
          "a",
          { file_path: "src/app/main_loop.ts", limit: 40, opts: { deep: ["x_value_1", 12345, true] } },
          '{"file_path":"src/app/main_loop.ts","limit":40,"opts":{"deep":["x_value_1",12345,true]}}',
        ),
        call("b", patch, patch),
        call("c", null, "raw input text with load_settings"),
        // the strings joined are the text as written: once
        call("d", { only: "same_text_here" }, "same_text_here"),
      ],
    },
    { role: "assistant", kind: "reasoning", text: "thinking about hidden_name", toolResults: [], toolCalls: [] },
  ];
  for (const m of messages) {
    const parts: string[] = [];
    forEachMessagePart(m, (t) => parts.push(t));
    expect(parts.join("\n")).toBe(messageText(m));
  }
  const parts: string[] = [];
  forEachMessagePart(messages[0]!, (t) => parts.push(t));
  expect(parts.filter((t) => t === patch)).toHaveLength(1);
  expect(parts.filter((t) => t === "same_text_here")).toHaveLength(1);
  expect(parts).toContain("12345");
});

/** First and last sightings by their definition: each message's tokens, one message after another. */
const definedSightings = (messages: readonly Message[]): { firstSeen: Map<string, number>; lastSeen: Map<string, number> } => {
  const firstSeen = new Map<string, number>();
  const lastSeen = new Map<string, number>();
  messages.forEach((m, i) => {
    for (const t of extractTokens(messageText(m))) {
      if (!firstSeen.has(t)) firstSeen.set(t, i);
      if (usesTokens(m)) lastSeen.set(t, i);
    }
  });
  return { firstSeen, lastSeen };
};

describe("plans: fast mode equals reference mode", () => {
  test("generated sessions of both hosts, cut at 50/70/90%", () => {
    const bad: string[] = [];
    let removed = 0;
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const host = seed % 2 === 0 ? "codex" : "claude";
      const s = generateSession({ seed, host, results: 150, outputChars: 800 });
      for (const share of [0.5, 0.7, 0.9, 1]) {
        bad.push(...samePlans(cut(s, share), `seed ${seed} ${host} @${share}`));
        removed += planWith(cut(s, share), undefined, "fast").totals.resultsDropped;
      }
    }
    expect(bad).toEqual([]);
    expect(removed).toBeGreaterThan(0);
  });

  test("other options: a low genericTokenResults (tokens go generic, and out of the search, early) and a budget (escalation looks up recent results)", () => {
    const bad: string[] = [];
    let escalated = 0;
    for (const seed of [21, 22, 23, 24]) {
      const host = seed % 2 === 0 ? "codex" : "claude";
      const s = generateSession({ seed, host, results: 200, outputChars: 600 });
      for (const genericTokenResults of [1, 2, 5]) bad.push(...samePlans(s, `seed ${seed} generic ${genericTokenResults}`, { genericTokenResults }));
      const budgetTokens = Math.floor(planWith(s, undefined, "fast").totals.tokensAfter * 0.5);
      bad.push(...samePlans(s, `seed ${seed} budget ${budgetTokens}`, { budgetTokens }));
      escalated += planWith(s, { budgetTokens }, "fast").decisions.filter((d) => d.rule === "escalation").length;
    }
    expect(bad).toEqual([]);
    expect(escalated).toBeGreaterThan(0);
  });

  test("repeated passes over a growing session (earlier passes' notes in place)", () => {
    const bad: string[] = [];
    for (const seed of [11, 12]) {
      const g = new Generator({ seed, host: seed % 2 ? "claude" : "codex", results: 0, outputChars: 500 });
      const grown = (out: readonly Message[], n: number): Session | undefined => {
        if (n + 1 >= 4) return undefined;
        g.continueFrom(out);
        return g.grow(30);
      };
      compactAsItGrows(g.grow(60), grown, ({ n, session }) => bad.push(...samePlans(session, `seed ${seed} pass ${n}`)));
    }
    expect(bad).toEqual([]);
  });

  test("adversarial results, referenced later in replies and inputs", () => {
    const b = new SessionBuilder();
    b.user("go");
    const rnd = prng(5);
    ADVERSARIAL.forEach((text, i) => {
      b.call("Bash", { command: `./tools/show --part ${i}` }, `${text}\n${randomText(rnd, 60)}`);
      const toks = extractTokens(text);
      if (toks.length > 0 && i % 2 === 0) b.assistant(`Using ${toks[Math.floor(rnd() * toks.length)]} and "${toks[0]}" next.`);
      if (i % 3 === 0) b.call("Grep", { pattern: toks[toks.length - 1] ?? "x" }, "no matches");
    });
    for (let i = 0; i < 12; i++) b.call("Bash", { command: `echo ${i}` }, `${i}`);
    b.assistant("done");
    const s: Session = { host: "claude", id: "adversarial", messages: b.messages };
    const p = planWith(s, undefined, "reference");
    expect(p.decisions.some((d) => d.rule === "referenced")).toBe(true);
    expect(samePlans(s, "adversarial")).toEqual([]);
  });
});
