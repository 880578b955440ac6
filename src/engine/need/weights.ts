// The need models shipped in the binary: written by build/fit-need.ts, not by hand.
// 24 features (features.ts); a user's own (bc calibrate --write, both models) take their place.
import type { NeedModel, NeedModels } from "./model.ts";

/** Every result's need: what sharpens the rules, and what `bc calibrate` compares a refit with. */
export const SHIPPED_NEED_MODEL: NeedModel = {
  source: "fitted by build/fit-need.ts on 22416 results of 50 public sessions (corpus 2aa33535765a), cuts at 30-90%; grouped 5-fold AUC 0.902, ECE 0.019",
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
    6.4675837, 3.7962952, 4.8385697, 0.24986617, 0.12196645, 0.050767309, 0.010483583, 0.3100464, 0.00093683084, 0.012044968, 0.15007138, 0.19080121,
    0.058306567, 0.078515346, 0.37633833, 0.60896531, 4.3402052, 0.24928622, 0.20886867, 0.057280514, 0.14534261, 0.093549251, 0.91592703, 0.12522305,
  ],
  scale: [
    2.0013168, 1.1301515, 1.17031, 0.43293541, 0.32724706, 0.21952218, 0.10185125, 0.4625123, 0.030593352, 0.1090866, 0.35714137, 0.3929327, 0.23432224,
    0.26898083, 0.4844665, 0.96583493, 1.4848925, 0.43259982, 0.40650036, 0.23237783, 0.35244594, 0.2912006, 0.89693612, 0.33097166,
  ],
  weights: [
    1.0874502, 0.28173032, 0.059577276, -0.24050402, 0.12307912, 0.20919777, 0.00085006742, 0.082992541, 0.012671991, 0.074773953, -1.2948539, 0.62840685,
    0.3594113, -0.0028260181, 0.27419668, 0.30017843, -0.76873014, -0.040411356, 0.08250132, 0.086771461, -0.0045809399, 0.095619623, -0.32784822, -0.34356607,
  ],
  intercept: -2.2307923,
};

/** The escalation's ranking under a budget: the same features fitted on the large results alone. */
export const SHIPPED_ESCALATION_MODEL: NeedModel = {
  source:
    "fitted by build/fit-need.ts on 7482 results of 2,000+ characters of 50 public sessions (corpus 2aa33535765a), cuts at 30-90%; grouped 5-fold AUC 0.782, ECE 0.027",
  features: SHIPPED_NEED_MODEL.features,
  mean: [
    8.7918553, 3.9720819, 5.0386004, 0.48075381, 0.13873296, 0.003875969, 0.013900027, 0.27238706, 0.0021384657, 0.021919273, 0.0062817428, 0.35886127,
    0.12189254, 0.074445335, 0.71197541, 1.3353724, 3.9277222, 0.066426089, 0.099171345, 0.031141406, 0.30473136, 0.11293772, 1.0030783, 0.25126971,
  ],
  scale: [
    0.79393483, 1.1116327, 1.1378783, 0.49962945, 0.34566765, 0.06213651, 0.11707611, 0.44518799, 0.046194076, 0.14642001, 0.079008117, 0.4796664, 0.32716166,
    0.26249424, 0.45284261, 1.1783213, 1.6927376, 0.24902543, 0.29889194, 0.1736998, 0.46029355, 0.31651665, 0.9178189, 0.43374329,
  ],
  weights: [
    0.45735707, 0.227704, 0.035193781, 0.081044592, -0.042423045, 0.092538129, -0.031601559, -0.091628033, 0.037214666, 0.15228487, -0.52829147, 0.026588881,
    0.084785216, -0.016074113, 0.048984193, 0.4108167, -0.8487284, -0.04845966, -0.0086051258, -0.00076439846, -0.061510789, 0.0075238321, -0.28842331,
    -0.35677831,
  ],
  intercept: 0.1715387,
};

/** Both, as a plan takes them. */
export const SHIPPED_NEED_MODELS: NeedModels = { need: SHIPPED_NEED_MODEL, escalation: SHIPPED_ESCALATION_MODEL };
