package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheCLIImplementsOnlyTheTerminalsSeams keeps cmd/docket to flags,
// rendering and wiring: no method of its code (package main and its
// internal packages) carries the name of an engine seam's method, except
// in the terminal's packages (the approvers of approve, the observers of
// render, the UI's bridge). A session's parts belong in engine/session.
func TestTheCLIImplementsOnlyTheTerminalsSeams(t *testing.T) {
	// The methods of engine.Log, model.Model, engine.Runner,
	// engine.RiskAssessor, engine.AgentHost, engine.Faults, engine.Hooks,
	// engine.PathResolver, engine.Clock, engine.Approver, engine.Observer.
	seam := map[string]bool{"Append": true, "Commit": true, "Respond": true, "Check": true, "Run": true,
		"Assess": true, "CreateLog": true, "OpenLog": true, "Model": true, "Hit": true, "CommitAt": true,
		"Pre": true, "Post": true, "Resolve": true, "RealPath": true, "Now": true, "Decide": true, "Notify": true}
	terminal := []string{"internal/approve", "internal/render", "internal/tui"}
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			for _, p := range terminal {
				if path == p {
					return filepath.SkipDir
				}
			}
			if path == "e2e" || path == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "test/") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil && seam[fn.Name.Name] {
				found = append(found, path+": "+fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("cmd/docket implements engine seams outside the terminal's packages (move them behind engine/session):\n%s", strings.Join(found, "\n"))
	}
}
