package sandbox

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/sandbox/layers"
)

// testNames lists what a proof may cite: the Test functions of this
// package's test files and every case name (a "name:" string in a
// composite literal), whichever suite the case belongs to.
func testNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", f, err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if strings.HasPrefix(n.Name.Name, "Test") {
					names = append(names, n.Name.Name)
				}
			case *ast.KeyValueExpr:
				key, ok := n.Key.(*ast.Ident)
				lit, isLit := n.Value.(*ast.BasicLit)
				if ok && isLit && key.Name == "name" && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil {
						names = append(names, v)
					}
				}
			}
			return true
		})
	}
	return names
}

// TestLayerWordsNameRealAttacks keeps every claim in layers.All tied to an
// attack the escape suite runs: a proof that names no case or test fails.
func TestLayerWordsNameRealAttacks(t *testing.T) {
	known := testNames(t)
	if !slices.Contains(known, "plant a .git hook") {
		t.Fatalf("the parser does not find the escape cases' names (%d names found)", len(known))
	}
	for _, w := range layers.All() {
		for _, p := range append(slices.Clone(w.Proofs), w.Lost...) {
			if !slices.Contains(known, p) {
				t.Errorf("layer %q cites %q, which is no escape case or Test function", w.Layer, p)
			}
		}
	}
}

// TestMissingNamespacesCostWhatExplainSays runs the escape suite's
// workspace-write attacks in the fallback without namespaces and checks the
// words for the missing layers against it: exactly the attacks the missing
// layers list as Lost get through, and every other one stays blocked by the
// layers still in force.
func TestMissingNamespacesCostWhatExplainSays(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	if caps.LandlockABI < 6 || !caps.Seccomp {
		t.Skip("the words assume Landlock ABI 6+ (scopes) and seccomp")
	}
	needsCaps := caps
	noNS := caps
	noNS.Root, noNS.UserNamespaces = false, false
	f0 := newFixture(t)
	plan := f0.plan(vWW)
	e := layers.Explain(plan, noNS.Layers(plan))
	var lost []string
	for _, m := range e.Missing {
		w, _ := layers.Describe(m.Layer)
		lost = append(lost, w.Lost...)
	}
	if len(e.Missing) < 3 || len(lost) == 0 {
		t.Fatalf("expected the namespace layers to be missing: %+v", e)
	}
	cases := append(append(escapeCases(), processEscapeCases()...), fsEscapeCases()...)
	for _, c := range cases {
		if slices.Contains(c.works, vWW) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if reason := fsNeed(c.needs, needsCaps); reason != "" {
				t.Skip(reason)
			}
			f := newFixture(t)
			t.Cleanup(func() {
				// Without a PID namespace nothing ends what an attack left
				// behind; let it die before the fixture's directories go.
				for i := 0; i < 100 && killByToken(t, f.token) > 0; i++ {
					time.Sleep(10 * time.Millisecond)
				}
			})
			argv := c.argv(t, f)
			plan := f.plan(vWW)
			if c.adjustPlan != nil {
				plan = c.adjustPlan(f, vWW, plan)
			}
			timeout := c.timeout
			if timeout == 0 {
				timeout = time.Minute
			}
			out, err := Run(context.Background(), Request{
				Argv: argv, Cwd: f.W, Plan: plan, Timeout: timeout,
				KillGrace: 500 * time.Millisecond, Caps: &noNS,
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, l := range []string{layers.MountNS, layers.PIDNS, layers.NetNS} {
				if slices.Contains(out.Layers, l) {
					t.Fatalf("layers %v: the run was meant to have no namespaces", out.Layers)
				}
			}
			got := c.effect(t, f, out)
			want := slices.Contains(lost, c.name)
			switch {
			case want && !got:
				t.Errorf("the words say this attack works without %v, but it was blocked (layers %v, output %q); fix the Lost words in sandbox/layers", layersOf(e.Missing), out.Layers, out.Output)
			case !want && got:
				t.Errorf("the attack works without %v, and no missing layer's words say so (layers %v); add it to a Lost list or block it", layersOf(e.Missing), out.Layers)
			}
		})
	}
}

func layersOf(ls []layers.Line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Layer)
	}
	return out
}
