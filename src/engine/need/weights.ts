// The need model shipped in the binary: written by build/fit-need.ts, not by hand.
// 24 features (features.ts); a user's own weights (bc calibrate --write) take its place.
import type { NeedModel } from "./model.ts";

export const SHIPPED_NEED_MODEL: NeedModel = {
  source: "fitted by build/fit-need.ts on 22416 results of 50 public sessions (corpus 48cf36624ef3), cuts at 30-90%; grouped 5-fold AUC 0.901, ECE 0.019",
  features: [
    "log_chars",
    "log_results_after",
    "log_messages_after",
    "class_read",
    "class_search",
    "class_listing",
    "class_test",
    "class_shell",
    "class_web",
    "class_subagent",
    "class_edit",
    "latest_read",
    "read_again",
    "repeated_later",
    "used_later",
    "log_used_tokens",
    "log_since_last_use",
    "rule_unreferenced",
    "rule_too_recent",
    "rule_discovery",
    "rule_referenced",
    "rule_never_drop",
    "log_prompts_after",
    "written_after",
  ],
  mean: [
    6.4675837, 3.7962952, 4.8385697, 0.24986617, 0.12196645, 0.050767309, 0.010483583, 0.3100464, 0.00093683084, 0.012044968, 0.14712705, 0.19080121,
    0.058306567, 0.078515346, 0.37633833, 0.60896531, 4.3402052, 0.24830478, 0.20971627, 0.057771235, 0.14801927, 0.11857602, 0.91592703, 0.12522305,
  ],
  scale: [
    2.0013168, 1.1301515, 1.17031, 0.43293541, 0.32724706, 0.21952218, 0.10185125, 0.4625123, 0.030593352, 0.1090866, 0.35423253, 0.3929327, 0.23432224,
    0.26898083, 0.4844665, 0.96583493, 1.4848925, 0.43202953, 0.40710608, 0.23331035, 0.35511909, 0.32328895, 0.89693612, 0.33097166,
  ],
  weights: [
    1.0859078, 0.25027154, 0.095315068, -0.24450444, 0.12954013, 0.19803355, -0.0013937803, 0.084492159, 0.014548548, 0.080704627, -1.2824828, 0.58068193,
    0.35343513, -0.0050334663, 0.26352533, 0.29862959, -0.76639765, -0.12599171, 0.022116655, 0.044868979, -0.043640091, 0.045881324, -0.32839201, -0.34222943,
  ],
  intercept: -2.2212093,
};
