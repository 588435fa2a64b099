#!/bin/bash
# A Claude Code PreToolUse hook: it reads Claude's spelling of the call (tool_name "Bash",
# tool_input.command) and blocks recursive deletes with exit 2 and a reason on stderr.
INPUT=$(cat)
COMMAND=$(echo "$INPUT" | jq -r '.tool_input.command // empty')
if [ "$(echo "$INPUT" | jq -r .tool_name)" = "Bash" ] && echo "$COMMAND" | grep -qE 'rm -(rf|fr)'; then
  echo "Blocked by $CLAUDE_PROJECT_DIR/.claude/hooks/block-rm.sh: $COMMAND deletes recursively" >&2
  exit 2
fi
exit 0
