// The need model shipped in the binary: written by build/fit-need.ts, not by hand.
// 24 features (features.ts); a user's own weights (bc calibrate --write) take its place.
import type { NeedModel } from "./model.ts";

export const SHIPPED_NEED_MODEL: NeedModel = {
  source: "fitted by build/fit-need.ts on 21758 results of 50 public sessions (corpus 48cf36624ef3), cuts at 30-90%; grouped 5-fold AUC 0.901, ECE 0.018",
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
    6.482877, 3.7850084, 4.8245834, 0.25664124, 0.1188988, 0.052118761, 0.0092839415, 0.29943009, 0.00096516224, 0.012409229, 0.15157643, 0.19657138,
    0.060069859, 0.075282655, 0.38165273, 0.61968536, 4.3178199, 0.36625609, 0.079556945, 0.072800809, 0.17064988, 0.093620737, 0.90367412, 0.12878022,
  ],
  scale: [
    2.0148329, 1.1273906, 1.167543, 0.43677971, 0.32366939, 0.2222665, 0.095904901, 0.45800842, 0.031052064, 0.11070339, 0.35860984, 0.39740542, 0.23761623,
    0.26384688, 0.48579206, 0.97080642, 1.482941, 0.48178062, 0.27060606, 0.25980926, 0.37620273, 0.29130035, 0.8940296, 0.33495653,
  ],
  weights: [
    1.0953062, 0.23038901, 0.10186638, 0.18335788, 0.09638659, 0.1895148, -0.019624812, 0.08542699, 0.011177022, 0.070475369, -1.2850698, 0.13470729,
    0.11174992, -0.0062914908, 0.2194521, 0.30179236, -0.75845813, -0.23009469, -0.0049969773, 0.044122055, -0.062017503, 0.028473793, -0.34101818, -0.33833105,
  ],
  intercept: -2.2163403,
};
