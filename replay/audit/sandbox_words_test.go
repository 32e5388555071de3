package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// hardenedSession writes a session whose runs went through the hardened
// sandbox: one with every layer and the limits (killed by the memory
// limit), one that fell back to no namespaces before the command existed.
func hardenedSession(tb testing.TB) string {
	w := newWriter(tb, "0199a1b2-0000-7000-8000-00000000b001", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write",
		WritableRoots: []string{fixtureCwd}})
	limits := events.ResourceLimits{MaxProcesses: 4096, MaxMemoryMB: 512, MaxCPUSeconds: 3600, MaxFileSizeMB: 8192}
	plan := wsPlan
	plan.Limits = limits
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "build it"})
	w.response("turn-1", 1,
		shellItem("h1", map[string]any{"command": []string{"make"}}),
		shellItem("h2", map[string]any{"command": []string{"make", "test"}}),
	)
	full := []string{"landlock:v7", "seccomp", "caps", "mountns", "pidns", "netns", "ipcns", "utsns", "gitdirs",
		"unix-sockets-covered", "devpts", "cgroup-v2:memory,pids", "rlimit:cpu,fsize"}
	w.tr("h1", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
	w.start("h1", 1, "shell", []string{"make"}, plan)
	w.add("h1", events.ExecOutcome{CallID: "h1", Attempt: 1, ExitCode: 137, Signal: "SIGKILL", DurationNs: 42e6,
		Layers: full, Killed: "memory_limit"})
	w.tr("h1", states.Sandboxed, states.Finish, states.CauseCompleted, "killed: memory limit")
	w.output("h1", false)
	w.tr("h2", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
	w.start("h2", 1, "shell", []string{"make", "test"}, plan)
	w.add("h2", events.ExecOutcome{CallID: "h2", Attempt: 1, DurationNs: 42e6,
		Layers:    []string{"landlock:v7", "seccomp", "rlimit:cpu,fsize"},
		Fallbacks: []string{"user, mount, PID, IPC, UTS and network namespaces: clone: operation not permitted"}})
	w.tr("h2", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("h2", true)
	return w.close()
}

func TestAuditPutsEachRunsSandboxIntoWords(t *testing.T) {
	path := hardenedSession(t)
	text := streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{}) })
	golden(t, "hardened.txt.golden", text)
	for _, want := range []string{
		"killed: memory limit",
		"limit:memory at most 512 MiB (cgroup-v2 memory controller, for the whole call)",
		"MISSING mountns:",
		"MISSING limit:memory: the plan asks for 512 MiB, but nothing enforced it",
		"fell back before the command existed: user, mount, PID, IPC, UTS and network namespaces",
	} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("text audit lacks %q", want)
		}
	}
	if strings.Count(string(text), "MISSING") != strings.Count(string(text[bytes.Index(text, []byte("call h2")):]), "MISSING") {
		t.Errorf("the run with every layer lists something missing:\n%s", text)
	}

	var r Report
	js := streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewJSONWriter(b) })
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatal(err)
	}
	h1, h2 := r.Calls[0].Attempts[0], r.Calls[1].Attempts[0]
	if h1.Killed != "memory_limit" || len(h1.Sandbox.InForce) != 13 || len(h1.Sandbox.Limits) != 4 || len(h1.Sandbox.Missing) != 0 {
		t.Errorf("h1 = killed %q, %d in force, %d limits, missing %v", h1.Killed, len(h1.Sandbox.InForce), len(h1.Sandbox.Limits), h1.Sandbox.Missing)
	}
	if len(h2.Fallbacks) != 1 || len(h2.Sandbox.Missing) == 0 {
		t.Errorf("h2 = fallbacks %v, missing %v", h2.Fallbacks, h2.Sandbox.Missing)
	}

	var page bytes.Buffer
	if err := Stream(context.Background(), path, Options{}, NewHTMLWriter(&page)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<ul class="layers">`, `<li class="missing">missing <code>mountns</code>`, `<p class="fallback">`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML audit lacks %q", want)
		}
	}
}

// An unsandboxed run's tree-kill layer is printed with how a process can
// leave it: the audit says what held the run's processes, not that they
// could not get away.
func TestSandboxNoteSaysHowATreeKillCanBeLeft(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *Sandbox
		want string
	}{
		{"cgroup v2", &Sandbox{Mode: events.SandboxNone, Layers: []string{"tree-kill:cgroup-v2"}},
			"NO SANDBOX (tree-kill:cgroup-v2, which a process that may write the cgroup file system (root) can leave)"},
		{"cgroup v1", &Sandbox{Mode: events.SandboxNone, Layers: []string{"tree-kill:cgroup-v1"}},
			"NO SANDBOX (tree-kill:cgroup-v1, which a process that may write the cgroup file system (root) can leave)"},
		{"process group", &Sandbox{Mode: events.SandboxNone, Layers: []string{"tree-kill:pgroup"}},
			"NO SANDBOX (tree-kill:pgroup, which a process leaves with setsid)"},
		{"leader only", &Sandbox{Mode: events.SandboxNone, Layers: []string{"tree-kill:pgroup", "dies-with-docket:leader-only"}},
			"NO SANDBOX (tree-kill:pgroup, which a process leaves with setsid; " +
				"dies-with-docket:leader-only: if docket was killed, background processes of the run may have outlived it)"},
		{"nothing held", &Sandbox{Mode: events.SandboxNone}, "NO SANDBOX"},
		{"sandboxed: layers as recorded", &Sandbox{Mode: events.SandboxWorkspaceWrite, Layers: []string{"landlock:v7", "pidns"}},
			"sandbox workspace-write, layers landlock:v7 pidns, network off"},
		{"sandboxed behind the egress proxy", &Sandbox{Mode: events.SandboxWorkspaceWrite, Layers: []string{"landlock:v7", "netns"}, Egress: true},
			"sandbox workspace-write, layers landlock:v7 netns, network through the egress proxy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sandboxNote(tc.s); got != tc.want {
				t.Errorf("sandboxNote = %q, want %q", got, tc.want)
			}
		})
	}
}

// A run without the sandbox that never finished (docket was killed while
// it ran) says what may have outlived docket; a sandboxed one does not.
func TestResultNoteOfAnInterruptedUnsandboxedRun(t *testing.T) {
	none := resultNote(Attempt{Sandbox: &Sandbox{Mode: events.SandboxNone}})
	if !strings.Contains(none, "processes it started in the background may have outlived docket") {
		t.Errorf("unsandboxed, no outcome: %q", none)
	}
	if got := resultNote(Attempt{Sandbox: &Sandbox{Mode: events.SandboxWorkspaceWrite}}); got != "no outcome recorded" {
		t.Errorf("sandboxed, no outcome: %q", got)
	}
}

// A run under an egress plan with allow_local_binding keeps both through
// its outcome: the audit says the network went through the proxy, and the
// Landlock words say bind stays allowed; without the binding they say it
// is refused.
func TestAuditOfAnEgressRunKeepsLocalBinding(t *testing.T) {
	for _, tc := range []struct {
		local bool
		want  string
	}{
		{true, "binding and listening on the command's own loopback stay allowed"},
		{false, "TCP connect and bind"},
	} {
		w := newWriter(t, "0199a1b2-0000-7000-8000-00000000e0b1", events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"})
		plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{fixtureCwd}, Egress: true, LocalBinding: tc.local}
		w.add("", events.UserTurn{TurnID: "turn-1", Text: "serve"})
		w.response("turn-1", 1, shellItem("b1", map[string]any{"command": []string{"python3", "-m", "http.server"}}))
		w.tr("b1", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "never")
		w.start("b1", 1, "shell", []string{"python3", "-m", "http.server"}, plan)
		w.outcome("b1", 1, 0, []string{"landlock:v7", "netns"}, nil)
		w.tr("b1", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
		w.output("b1", true)
		r, err := Build(w.close(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Calls) != 1 || len(r.Calls[0].Attempts) != 1 || r.Calls[0].Attempts[0].Sandbox == nil {
			t.Fatalf("LocalBinding %v: calls %+v", tc.local, r.Calls)
		}
		sb := r.Calls[0].Attempts[0].Sandbox
		var words string
		for _, l := range sb.InForce {
			words += l.Layer + ": " + l.Words + "\n"
		}
		if !sb.Egress || sb.LocalBinding != tc.local || !strings.Contains(words, tc.want) {
			t.Errorf("LocalBinding %v: egress %v, local %v, in force:\n%s\nwant %q", tc.local, sb.Egress, sb.LocalBinding, words, tc.want)
		}
		if got := sandboxNote(sb); !strings.HasSuffix(got, "network through the egress proxy") {
			t.Errorf("LocalBinding %v: sandbox note %q", tc.local, got)
		}
	}
}

// A damaged or crafted journal whose plans say both a direct network and
// the egress proxy (no plan docket builds does) is not audited as the
// proxy's filtering: the session's policy line and the run's sandbox note
// say the record is inconsistent and take the network as on, in the text
// and the HTML, and the JSON marks the policy so.
func TestAnInconsistentNetworkRecordIsNotTakenForTheEgressProxy(t *testing.T) {
	both := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{fixtureCwd}, Network: true, Egress: true}
	w := newWriterPlan(t, "0199a1b2-0000-7000-8000-00000000e0c1",
		events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write", NetworkAccess: true}, both, nil)
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "fetch"})
	w.response("turn-1", 1, shellItem("c1", map[string]any{"command": []string{"curl", "example.test"}}))
	w.tr("c1", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "never")
	w.start("c1", 1, "shell", []string{"curl", "example.test"}, both)
	w.outcome("c1", 1, 0, []string{"landlock:v7", "netns", "egress-bridge"}, nil)
	w.tr("c1", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c1", true)
	r, err := Build(w.close(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Policy.NetworkInconsistent {
		t.Errorf("the policy of a plan saying both is not marked inconsistent: %+v", r.Policy)
	}
	var text, html strings.Builder
	if err := WriteText(&text, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "html": html.String()} {
		if strings.Contains(out, "network through the egress proxy") {
			t.Errorf("the %s audit takes the inconsistent record for the egress proxy:\n%s", name, out)
		}
		if !strings.Contains(out, "the record is inconsistent") {
			t.Errorf("the %s audit does not say the network record is inconsistent:\n%s", name, out)
		}
	}
	if !strings.Contains(text.String(), "policy  approval never, sandbox workspace-write, network "+events.NetworkWordsInconsistent+"\n") {
		t.Errorf("the policy line does not name the inconsistency:\n%s", text.String())
	}
	if n := strings.Count(text.String(), "network "+events.NetworkWordsInconsistent); n != 2 {
		t.Errorf("the inconsistency is named %d times, want 2 (the policy and the run):\n%s", n, text.String())
	}
}

// NetworkWords names each combination; the one no plan builds (both)
// fails closed rather than claiming the proxy.
func TestNetworkWords(t *testing.T) {
	for _, tc := range []struct {
		on, egress bool
		want       string
	}{
		{false, false, "off"},
		{true, false, "on"},
		{false, true, "through the egress proxy"},
		{true, true, events.NetworkWordsInconsistent},
	} {
		if got := networkWords(tc.on, tc.egress); got != tc.want {
			t.Errorf("networkWords(%v, %v) = %q, want %q", tc.on, tc.egress, got, tc.want)
		}
	}
}
