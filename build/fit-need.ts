#!/usr/bin/env bun
// Refit the need model shipped in the binary: replay every session of a corpus, label each
// result by whether the session used it after the cut, fit, and write
// src/engine/need/weights.ts with where the weights came from. Deterministic: the same files
// give the same weights, byte for byte.
//
//   bun build/fit-need.ts <corpus folder> [--check <validation folder>]
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scoreModel } from "../src/engine/need/fit.ts";
import { collectNeedSamples } from "../src/eval/need-data.ts";
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
const { model, sessions, held } = fitShippedModel(dev);
process.stderr.write(
  `fit-need: ${dev.samples.length} samples from ${sessions} sessions; grouped 5-fold AUC ${held.auc.toFixed(3)}, ECE ${held.ece.toFixed(3)}\n`,
);
if (validation !== undefined) {
  const val = collectNeedSamples([validation], () => {});
  const v = scoreModel(model, val.samples);
  process.stderr.write(`fit-need: validation ${val.samples.length} samples: AUC ${v.auc.toFixed(3)}, ECE ${v.ece.toFixed(3)}\n`);
}
writeFileSync(join(import.meta.dir, "..", "src", "engine", "need", "weights.ts"), weightsFile(model));
process.stderr.write("fit-need: wrote src/engine/need/weights.ts\n");
