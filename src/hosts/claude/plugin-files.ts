import { embeddedPluginFiles } from "../../../build/plugin.ts" with { type: "macro" };
export const PLUGIN_FILES: Record<string, string> = embeddedPluginFiles();
