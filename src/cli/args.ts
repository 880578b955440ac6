// Argument definitions more than one subcommand shares, so they read and behave the same.

/** A session file of either host, or a session id looked up where the hosts keep them. */
export const SESSION_ARG = {
  type: "positional",
  required: true,
  description:
    "A Claude Code transcript (~/.claude/projects/<project>/<id>.jsonl), a Codex rollout ($CODEX_HOME/sessions/**/rollout-*.jsonl), or a session id to look up in those places",
} as const;
