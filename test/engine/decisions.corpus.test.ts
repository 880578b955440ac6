// The decisions on every corpus session, held to a record: decision-hashes.json maps the sha256
// of each session file's bytes to the sha256 of its decision table (support/decision-snapshot.ts),
// so a change meant to keep the rules' decisions shows any session whose table moved. Sessions
// the record does not know are skipped. Folders: ../shared/corpus, plus any listed in
// BC_EXTRA_CORPUS (separated by ":"). After a change that is meant to move decisions, rewrite
// the record with `bun test/engine/support/decision-snapshot.ts --hashes <folders> >
// test/engine/decision-hashes.json` and say in the commit which sessions moved and why.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { CORPUS_FOLDERS, CORPUS_TIMEOUT_MS, SKIP_NOTE, hasCorpus } from "../support/shared.ts";
import RECORD from "./decision-hashes.json";
import { decisionTable, sessionFiles } from "./support/decision-snapshot.ts";

const sha256 = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");
const record: Record<string, string> = RECORD;
const folders = CORPUS_FOLDERS;

describe.skipIf(!hasCorpus())("decision tables of the corpus sessions match the record", () => {
  test(
    "every session the record knows",
    () => {
      const moved: string[] = [];
      let compared = 0;
      for (const f of folders.flatMap(sessionFiles)) {
        const want = record[sha256(readFileSync(f))];
        if (want === undefined) continue;
        compared++;
        if (sha256(decisionTable(f)) !== want) moved.push(f.split("/").slice(-2).join("/"));
      }
      expect(moved).toEqual([]);
      expect(compared).toBeGreaterThan(0);
    },
    CORPUS_TIMEOUT_MS,
  );
});

if (!hasCorpus()) test.skip(SKIP_NOTE, () => {});
