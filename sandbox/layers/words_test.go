package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// layerConstants finds, in names.go, every string constant: the names Run can report. Parsing the
// source means a new constant fails TestEveryLayerHasWords until it is
// described, with no list to keep in step by hand.
func layerConstants(t *testing.T) map[string]string {
	t.Helper()
	files := []string{"names.go"}
	consts := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", f, err)
		}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					consts[name.Name] = v
				}
			}
		}
	}
	return consts
}

func TestEveryLayerHasWords(t *testing.T) {
	consts := layerConstants(t)
	if len(consts) < 6 {
		t.Fatalf("found %d Layer constants (%v); the parser is not finding them", len(consts), consts)
	}
	names := []string{"landlock:v1", "landlock:v7"}
	for _, v := range consts {
		names = append(names, v)
	}
	for _, n := range names {
		w, ok := Describe(n)
		if !ok {
			t.Errorf("layer %q has no words in layerWords (sandbox/layers/words.go)", n)
			continue
		}
		if w.Stops == "" || w.Missing == "" || len(w.Proofs) == 0 {
			t.Errorf("layer %q: Stops, Missing and Proofs must all be set: %+v", n, w)
		}
	}
	seen := map[string]bool{}
	for _, w := range All() {
		if seen[w.Layer] {
			t.Errorf("layer %q described twice", w.Layer)
		}
		seen[w.Layer] = true
		if w.Layer != Landlock && !slices.Contains(names, w.Layer) && !slices.Contains(names, Base(w.Layer)) {
			t.Errorf("words for %q, which no Layer constant names", w.Layer)
		}
	}
}

func TestExplain(t *testing.T) {
	full := []string{"landlock:v7", Seccomp, Caps, MountNS, PIDNS, NetNS, IPCNS, UTSNS,
		UnixSockets, Devpts}
	ro := events.SandboxPlan{Mode: events.SandboxReadOnly}
	tests := []struct {
		name        string
		plan        events.SandboxPlan
		layers      []string
		wantInForce []string
		wantMissing []string
		wantText    []string
	}{
		{name: "everything in force misses nothing", plan: ro, layers: full, wantInForce: full,
			wantText: []string{"with the network off, TCP connect and bind", "abstract unix sockets and signals"}},
		{name: "the fallback without namespaces names each one lost", plan: ro,
			layers:      []string{"landlock:v7", Seccomp, Caps},
			wantInForce: []string{"landlock:v7", Seccomp, Caps},
			wantMissing: []string{MountNS, PIDNS, NetNS, IPCNS, UTSNS, Devpts, UnixSockets},
			wantText:    []string{"a planted hook runs unsandboxed"}},
		{name: "network on wants no network namespace, no TCP rules and no socket covering",
			plan:        events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Network: true},
			layers:      []string{"landlock:v7", Seccomp, Caps, MountNS, PIDNS, IPCNS, UTSNS, Devpts, GitDirs},
			wantInForce: []string{"landlock:v7", Seccomp, Caps, MountNS, PIDNS, IPCNS, UTSNS, Devpts, GitDirs}},
		{name: "workspace-write wants the other git directories; a partial walk says what it left",
			plan:        events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
			layers:      append(slices.Clone(full), GitDirsPartial, UnixSockets+":partial"),
			wantInForce: append(slices.Clone(full), GitDirsPartial, UnixSockets+":partial"),
			wantText:    []string{"what it did not look into is read-only for this call", "the sockets past it are NOT covered"}},
		{name: "workspace-write without the git directory walk lists it",
			plan: events.SandboxPlan{Mode: events.SandboxWorkspaceWrite}, layers: full, wantInForce: full,
			wantMissing: []string{GitDirs}},
		{name: "Landlock ABI 9 covers unix sockets itself", plan: ro,
			layers:      []string{"landlock:v9", Seccomp, Caps, MountNS, PIDNS, NetNS, IPCNS, UTSNS, Devpts},
			wantInForce: []string{"landlock:v9", Seccomp, Caps, MountNS, PIDNS, NetNS, IPCNS, UTSNS, Devpts}},
		{name: "an old Landlock lists its gaps", plan: ro,
			layers:      []string{"landlock:v3", Seccomp, Caps, UserNS, MountNS, PIDNS, NetNS, IPCNS, UTSNS, UnixSockets, Devpts},
			wantInForce: []string{"landlock:v3", Seccomp, Caps, UserNS, MountNS, PIDNS, NetNS, IPCNS, UTSNS, UnixSockets, Devpts},
			wantMissing: []string{"landlock:tcp (ABI 4)", "landlock:scope (ABI 6)"}},
		{name: "an unknown layer is shown, not hidden", plan: ro, layers: append(slices.Clone(full), "future"),
			wantInForce: append(slices.Clone(full), "future"), wantText: []string{"is not described by this version"}},
		{name: "no sandbox says so", plan: events.SandboxPlan{Mode: events.SandboxNone},
			wantText: []string{"no sandbox (mode none): the command runs with docket's own rights"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Explain(tt.plan, tt.layers)
			if got := layersOf(e.InForce); !slices.Equal(got, tt.wantInForce) {
				t.Errorf("in force = %v, want %v", got, tt.wantInForce)
			}
			if got := layersOf(e.Missing); !slices.Equal(got, tt.wantMissing) {
				t.Errorf("missing = %v, want %v", got, tt.wantMissing)
			}
			text := strings.Join(e.Lines(), "\n")
			for _, s := range tt.wantText {
				if !strings.Contains(text, s) {
					t.Errorf("text lacks %q:\n%s", s, text)
				}
			}
			if tt.plan.Sandboxed() && strings.Count(text, "\n")+1 != 1+len(e.InForce)+len(e.Missing) {
				t.Errorf("want one line per layer:\n%s", text)
			}
		})
	}
}

func layersOf(ls []Line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Layer)
	}
	return out
}

// TestThreatModelNamesEveryLayer keeps docs/sandbox.md in step with the
// vocabulary: every layer with words has a row there.
func TestThreatModelNamesEveryLayer(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "sandbox.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range All() {
		if !strings.Contains(string(doc), "`"+w.Layer) {
			t.Errorf("docs/sandbox.md does not describe the layer %q", w.Layer)
		}
	}
}

func TestExplainLimits(t *testing.T) {
	limits := events.ResourceLimits{MaxProcesses: 4096, MaxMemoryMB: 8192, MaxCPUSeconds: 3600, MaxFileSizeMB: 8192}
	tests := []struct {
		name        string
		layers      []string
		wantLimits  []string
		wantMissing []string
		wantText    []string
	}{
		{name: "a cgroup and rlimits enforce all four",
			layers:     []string{"cgroup-v1:memory,pids", "rlimit:cpu,fsize"},
			wantLimits: []string{"limit:memory", "limit:processes", "limit:cpu", "limit:file-size"},
			wantText:   []string{"at most 8192 MiB (cgroup-v1 memory controller, for the whole call)", "killed: memory limit"}},
		{name: "without a cgroup memory is unbounded and processes fall back to nproc",
			layers:      []string{"rlimit:cpu,fsize,nproc"},
			wantLimits:  []string{"limit:processes", "limit:cpu", "limit:file-size"},
			wantMissing: []string{"limit:memory"},
			wantText:    []string{"counted per user", "the plan asks for 8192 MiB, but nothing enforced it"}},
		{name: "nothing reported: every limit is missing",
			wantMissing: []string{"limit:memory", "limit:processes", "limit:cpu", "limit:file-size"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, missing := explainLimits(limits, tt.layers)
			if got := layersOf(in); !slices.Equal(got, tt.wantLimits) {
				t.Errorf("in force = %v, want %v", got, tt.wantLimits)
			}
			if got := layersOf(missing); !slices.Equal(got, tt.wantMissing) {
				t.Errorf("missing = %v, want %v", got, tt.wantMissing)
			}
			text := fmt.Sprint(in, missing)
			for _, s := range tt.wantText {
				if !strings.Contains(text, s) {
					t.Errorf("words lack %q: %s", s, text)
				}
			}
		})
	}
	if in, missing := explainLimits(events.ResourceLimits{}, []string{"rlimit:cpu"}); len(in)+len(missing) != 0 {
		t.Errorf("a plan without limits explains none: %v %v", in, missing)
	}
}

// Under an egress plan with allow_local_binding, the Landlock words say
// TCP bind stays allowed; without it, that bind is refused.
func TestLandlockWordsFollowLocalBinding(t *testing.T) {
	for _, tc := range []struct {
		local bool
		want  string
	}{
		{false, "TCP connect and bind"},
		{true, "binding and listening on the command's own loopback stay allowed"},
	} {
		plan := events.SandboxPlan{Mode: events.SandboxReadOnly, Egress: true, LocalBinding: tc.local}
		e := Explain(plan, []string{"landlock:v7", "egress"})
		if len(e.InForce) == 0 || !strings.Contains(e.InForce[0].Words, tc.want) {
			t.Errorf("LocalBinding %v: landlock words %+v, want %q", tc.local, e.InForce, tc.want)
		}
	}
}
