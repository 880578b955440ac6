// Injected at build time by build/compile.ts (`define`); from source it reads package.json's.
declare const BC_VERSION: string | undefined;
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = typeof BC_VERSION === "string" ? BC_VERSION : pkg.version;
