// The rules as the product runs them: the engine's plan + apply at bc's defaults.
import { apply } from "../../engine/apply.ts";
import { plan } from "../../engine/plan.ts";
import type { Compactor } from "./rules.ts";

export const rulesCompactor: Compactor = (session) => apply(session, plan(session));
