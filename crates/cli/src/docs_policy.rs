//! The `type: policy` section of docs/hooks.md.

/// Cedar policy hooks: the request Tether builds and what the decision means.
pub(crate) const POLICY_HOOKS: &str = "## Policy hooks (Cedar)

`type: policy` evaluates [Cedar](https://www.cedarpolicy.com) policies in process, on `pre_tool_use`, `tool_guard`, `permission_request` and `user_prompt_submit` (any other event is a load error):

```yaml
- type: policy
  policy: ./policies/tools.cedar           # a file (relative to the agent file), or `policy_text:` inline
  schema: ./policies/tools.cedarschema     # optional: the policies are validated against it at load
```

The policies are parsed once, at load; a parse error, an unreadable file or a policy that does not match the schema (strict validation) is a load error at `FILE:LINE:COL` (inside the agent file for `policy_text`). Each call is one Cedar request:

| part | value |
|---|---|
| principal | `Agent::\"NAME\"` (the agent's name) |
| action | `Action::\"EVENT\"`, e.g. `Action::\"pre_tool_use\"` |
| resource | `Tool::\"TOOL\"`; an MCP tool is `Tool::\"mcp:SERVER:TOOL\"`; on `user_prompt_submit`, `Prompt::\"user\"` |
| context | `{tool_input, session_id, cwd, agent, safety}`; `tool_input` is the call's arguments as a record (`{}` without arguments), `safety` the agent's safety mode (`strict`, `balanced`, `restricted`, `autonomous`); on `user_prompt_submit` also `prompt`, the user's text |

JSON becomes Cedar values this way: strings, booleans and integers as themselves, objects as records, arrays as sets; a number that is not a 64-bit integer becomes its decimal text (a string); `null` has no Cedar value, so the key is left out (test with `has`). No entities are loaded (the entity store is empty) and the request itself is not checked against the schema, so a tool with unexpected arguments is still decided. As in Cedar, a policy whose condition errors (reading a key a call does not have, without `has`; a wrong type, such as `like` on a number) does not apply. That never changes the decision, but it is reported, so a `forbid` that stopped applying does not go unnoticed: the hook run's `error` in `--hook-log` (its `status` stays `ok`) names each such policy with Cedar's message (``policy `ID` errored, so did not apply: MESSAGE``), the diagnostic log has a `WARN` line for each (`TETHER_LOG=warn`), and `tether hooks decide` lists them as `policy_errors` (`[{\"policy\": ID, \"error\": MESSAGE}]`, top level and per hook run). Guard optional keys with `has`: `context.tool_input has cmd && context.tool_input.cmd like \"*rm *\"`.

The answer: a `forbid` that applies denies (on `user_prompt_submit`: blocks the prompt), with the policy's `@reason(\"…\")` annotation as the reason the model sees (else its id; several forbids join with `; `, in file order); a `permit` that applies and no forbid allows, with `allowed by policy ID`; when no policy applies the hook has no opinion and the call goes on down the ladder. A policy's id is its `@id(\"…\")` annotation, else Cedar's (`policy0`, `policy1`, … in file order). `tether hooks decide` lists the deciding policies' ids (`policies`, top level and per hook run); `tether hooks check` shows each policy set with its number of policies, and in an agent with the `background_jobs` toolset warns of each `forbid` on a tool event whose scope (or a `when` conjunct) names `Tool::\"shell\"` but not `Tool::\"run_background_job\"`, at the policy's `FILE:LINE:COL`: a background job runs a shell command too, so such a forbid is gone round (name both: `when { resource in [Tool::\"shell\", Tool::\"run_background_job\"] && … }`). At load the policies are indexed by the event and the resource their scope names (`action ==`, `action in [...]`, `resource ==`, `resource in`), so a call evaluates only the policies whose scope can match it (a policy that leaves the action or the resource open is evaluated for every call on that axis); the answers are those of the whole set. Write `resource == Tool::\"shell\"` in the scope rather than in `when` to keep a large file cheap. Policies whose conditions stay within the common part of the language (`==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, `if`, `has`, attributes, `like`, `is`, `in`, `.contains`, `.containsAll`, `.containsAny`, `.isEmpty`, set literals, and string, boolean, integer and entity literals) are compiled at load and evaluated directly over the call, with Cedar's answers, in well under a microsecond each; the others (extension functions such as `ip` or `decimal`, arithmetic, record literals, `has a.b`, templates) go through Cedar's evaluator, about 2 µs each.

";
