// The installable plugin's files, built from hooks/, .claude-plugin/ and the sources when bc is
// bundled (or run from source): a Bun macro, so the compiled binary carries them as a literal
// and nothing under build/ is imported at run time. Loaded only by `bc claude install`.
import { embeddedPluginFiles } from "../../../build/plugin.ts" with { type: "macro" };

export const PLUGIN_FILES: Record<string, string> = embeddedPluginFiles();
