#!/usr/bin/env bun
// Refit the need model shipped in the binary: replay every session of a corpus, label each
// result by whether the session used it after the cut, fit, and write
// src/engine/need/weights.ts with where the weights came from. Deterministic: the same files
// give the same weights, byte for byte.
//
//   bun build/fit-need.ts <corpus folder> [--check <validation folder>]
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { collectNeedSamples } from "../src/eval/need-data.ts";
import { ESCALATION_MIN_CHARS, escalationSamples, scoreModel } from "../src/engine/need/fit.ts";
import { fitShippedModel, weightsFile } from "./need-model.ts";

const args = process.argv.slice(2);
const check = args.indexOf("--check");
const validation = check === -1 ? undefined : args[check + 1];
const corpus = args.find((a, i) => !a.startsWith("--") && (check === -1 || i !== check + 1));
if (corpus === undefined) {
  process.stderr.write("usage: bun build/fit-need.ts <corpus folder> [--check <validation folder>]\n");
  process.exit(2);
}

const dev = collectNeedSamples([corpus], (msg) => process.stderr.write(`fit-need: ${msg}\n`));
if (dev.samples.length === 0) {
  process.stderr.write(`fit-need: no results to fit on in ${corpus} (${dev.files} session files read); weights.ts left as it is\n`);
  process.exit(1);
}
const { model, escalation, sessions, held, heldEscalation } = fitShippedModel(dev);
process.stderr.write(
  `fit-need: ${dev.samples.length} samples from ${sessions} sessions; grouped 5-fold AUC ${held.auc.toFixed(3)}, ECE ${held.ece.toFixed(3)}\n`,
);
process.stderr.write(
  `fit-need: the escalation's, on results of ${ESCALATION_MIN_CHARS}+ characters: grouped 5-fold AUC ${heldEscalation.auc.toFixed(3)}, ECE ${heldEscalation.ece.toFixed(3)}\n`,
);
if (validation !== undefined) {
  const val = collectNeedSamples([validation], () => {});
  const v = scoreModel(model, val.samples);
  process.stderr.write(`fit-need: validation ${val.samples.length} samples: AUC ${v.auc.toFixed(3)}, ECE ${v.ece.toFixed(3)}\n`);
  const large = escalationSamples(val.samples);
  const e = scoreModel(escalation, large);
  const before = scoreModel(model, large);
  process.stderr.write(
    `fit-need: validation, the escalation's on ${large.length} samples of ${ESCALATION_MIN_CHARS}+ characters: AUC ${e.auc.toFixed(3)}, ECE ${e.ece.toFixed(3)} (the other model there: AUC ${before.auc.toFixed(3)}, ECE ${before.ece.toFixed(3)})\n`,
  );
}
writeFileSync(join(import.meta.dir, "..", "src", "engine", "need", "weights.ts"), weightsFile(model, escalation));
process.stderr.write("fit-need: wrote src/engine/need/weights.ts\n");
