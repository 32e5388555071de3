package engine

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// FuzzScreenCalls feeds a response's call ids (one per line of ids, with
// earlier responses' ids in used) to the screen. Every call is either
// accepted or refused, once, in order; accepted ids are printable, bounded,
// unique in the response and new to the session; each refusal's output
// names its position.
func FuzzScreenCalls(f *testing.F) {
	f.Add("c1\nc2\nc3", "")
	f.Add("\nc1", "")
	f.Add("d\nd\nok", "")
	f.Add("c1", "c1")
	f.Add("c\x1b[2K\nc\u202e", "")
	f.Add(strings.Repeat("x", MaxCallIDBytes+1), "")
	f.Fuzz(func(t *testing.T, ids, used string) {
		if len(ids) > 1<<16 {
			return
		}
		var calls []Call
		for _, id := range strings.Split(ids, "\n") {
			calls = append(calls, Call{ID: id, Name: "shell", Kind: model.ToolFunction})
		}
		usedSet := map[string]bool{}
		for _, id := range strings.Split(used, "\n") {
			usedSet[id] = true
		}
		valid, refused := screenCalls(calls, func(id string) bool { return usedSet[id] })
		if len(valid)+len(refused) != len(calls) {
			t.Fatalf("%d calls became %d accepted and %d refused", len(calls), len(valid), len(refused))
		}
		seen := map[string]bool{}
		for _, c := range valid {
			if c.ID == "" || len(c.ID) > MaxCallIDBytes || !printableID(c.ID) || seen[c.ID] || usedSet[c.ID] {
				t.Fatalf("accepted call id %q", c.ID)
			}
			seen[c.ID] = true
		}
		last := -1
		for _, sc := range refused {
			if sc.pos <= last || sc.pos >= len(calls) || sc.reason == "" {
				t.Fatalf("refusal %+v out of order or without a reason", sc)
			}
			last = sc.pos
			if out := invalidOutput(sc); !strings.Contains(out, "tool call ") || !printableOutput(out) {
				t.Fatalf("refusal output %q", out)
			}
		}
	})
}

// printableOutput reports whether s holds no control characters other
// than newlines: a refusal quotes the model's id and name escaped.
func printableOutput(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f {
			return false
		}
	}
	return true
}

// FuzzShellArguments feeds arbitrary argument text to the shell tool's
// Prepare, the parser of the model's arguments: it returns a call or an
// error, never panics, and a call it returns has a non-empty argv without
// NUL bytes.
func FuzzShellArguments(f *testing.F) {
	f.Add(`{"command":["ls","-la"]}`)
	f.Add(`{"command":["bash","-lc","echo hi"],"workdir":"sub","timeout_ms":5}`)
	f.Add(`{"command":["touch","x"],"sandbox_permissions":"require_escalated","justification":"needed\u001b[2K"}`)
	f.Add(`{"command":[]}`)
	f.Add(`{"command":["a\u0000b"]}`)
	f.Add(`{"command":["ls"]}{"command":["rm"]}`)
	f.Add(`{"command":["ls"],"extra":1}`)
	f.Add(`{"command":["ls"],"timeout_ms":-1}`)
	f.Add(`{"command":["ls"],"workdir":"../../etc"}`)
	f.Add(`"{\"command\":[\"ls\"]}"`)
	cwd := f.TempDir()
	d, err := NewDecider(events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, cwd,
		events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{cwd}}, nil, f.TempDir(), nil)
	if err != nil {
		f.Fatal(err)
	}
	env := &Env{Cwd: cwd, Config: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, Decider: d}
	f.Fuzz(func(t *testing.T, args string) {
		if len(args) > 1<<16 {
			return
		}
		p, err := ShellTool{}.Prepare(Call{ID: "c1", Name: "shell", Kind: model.ToolFunction, Payload: args}, env)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if len(p.Command) == 0 || p.Command[0] == "" {
			t.Fatalf("accepted an empty command from %q", args)
		}
		for _, a := range p.Command {
			if strings.IndexByte(a, 0) >= 0 {
				t.Fatalf("accepted a NUL byte from %q", args)
			}
		}
	})
}
