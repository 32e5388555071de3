// Package hooks runs the operator's pre_tool and post_tool hooks: external
// commands that judge a tool call before it is decided (allow, deny, or force
// an approval prompt) and hear of its outcome after it ran.
//
// A hook receives the call as JSON on stdin and answers like Claude Code's
// hooks: exit 0 with nothing on stdout allows, exit 2 denies with its stderr
// as the reason, and exit 0 with a JSON object {"decision": "allow" | "deny"
// | "ask", "reason": "..."} on stdout says so explicitly. Anything else (another
// exit code, a signal, a time-out, stdout that is not such an object, a hook
// that cannot start or cannot be sandboxed) is a failure, and the hook's
// on_error decides ("deny" unless configured "allow").
//
// The package only produces verdicts (events.HookVerdict); the engine
// journals them as inputs and combines them with the policy (stricter wins),
// so verify replay feeds the recorded verdicts back without running a hook.
package hooks
