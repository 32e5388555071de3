package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/docket-engine/docket/events"
)

// maxReason bounds the reason a hook can put in front of the model and into
// the journal.
const maxReason = 4096

// answer is a hook's JSON reply on stdout.
type answer struct {
	Decision *string `json:"decision"`
	Reason   string  `json:"reason"`
}

// failure is a hook that gave no usable answer.
type failure struct{ msg string }

func (f *failure) Error() string { return f.msg }

// judge turns a finished hook's outcome into a decision and reason, or a
// failure. It reads nothing but o.
func judge(stage events.HookStage, o events.ExecOutcome, timeout time.Duration) (events.HookDecision, string, error) {
	switch {
	case o.SandboxError != "":
		return "", "", &failure{"could not be sandboxed: " + o.SandboxError}
	case o.Error != "":
		return "", "", &failure{"could not run: " + o.Error}
	case o.TimedOut:
		return "", "", &failure{fmt.Sprintf("did not answer within %s and was killed", timeout)}
	case o.Signal != "":
		return "", "", &failure{"was killed by " + o.Signal + stderrNote(o.Stderr)}
	case o.Killed != "":
		return "", "", &failure{"was stopped: " + strings.ReplaceAll(o.Killed, "_", " ")}
	case o.ExitCode == 2:
		reason := clip(strings.TrimSpace(o.Stderr))
		if reason == "" {
			reason = "the hook exited 2 without saying why"
		}
		return events.HookDeny, reason, nil
	case o.ExitCode != 0:
		return "", "", &failure{"exited " + strconv.Itoa(o.ExitCode) + stderrNote(o.Stderr)}
	}
	out := bytes.TrimSpace([]byte(o.Stdout))
	if len(out) == 0 {
		return events.HookAllow, "", nil
	}
	if o.Truncated {
		return "", "", &failure{"printed more than an answer (output cut)"}
	}
	var a answer
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&a); err != nil || dec.More() {
		return "", "", &failure{"printed something that is not a JSON answer: " + strconv.Quote(clipTo(string(out), 200))}
	}
	if a.Decision == nil {
		return "", "", &failure{`printed JSON without a "decision"`}
	}
	d := events.HookDecision(*a.Decision)
	switch d {
	case events.HookAllow, events.HookDeny:
	case events.HookAsk:
		if stage == events.HookPostTool {
			return "", "", &failure{`answered "ask" after the call had run`}
		}
	default:
		return "", "", &failure{fmt.Sprintf("answered decision %q, not allow, deny or ask", clipTo(*a.Decision, 40))}
	}
	return d, clip(strings.TrimSpace(a.Reason)), nil
}

func stderrNote(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return ""
	}
	return ": " + clipTo(s, 200)
}

func clip(s string) string { return clipTo(s, maxReason) }

// clipTo cuts s to at most n bytes, on a rune boundary.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
