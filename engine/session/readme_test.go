package session_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock returns the Go code block of the README's Embedding section.
func readmeBlock(t *testing.T, readme string) string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	_, section, ok := strings.Cut(text, "\n## Embedding\n")
	if !ok {
		t.Fatalf("%s has no \"## Embedding\" section", readme)
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	m := regexp.MustCompile("(?s)\n```go\n(.*?)\n```\n").FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("the Embedding section of %s has no ```go block", readme)
	}
	return m[1] + "\n"
}

// TestREADMEEmbeddingBuildsAndRuns builds the README's Embedding program
// as it stands in a module outside this repository (a replace directive
// points at the checkout) and runs it: one scripted turn under the
// sandbox, then a replay that matches the journal.
func TestREADMEEmbeddingBuildsAndRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module outside the repository (about a minute on a cold cache)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	src := readmeBlock(t, filepath.Join(root, "README.md"))
	mod := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	goMod := "module example.com/embedding\n\ngo 1.26.0\n\nrequire github.com/docket-engine/docket v0.0.0\n\nreplace github.com/docket-engine/docket => " + root + "\n"
	for name, body := range map[string]string{"go.mod": goMod, "go.sum": string(sum), "main.go": src} {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goTool := filepath.Join(os_getenv("GOROOT", ""), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(context.Background(), name, args...)
		cmd.Dir = mod
		// -mod=mod lets go complete go.mod and go.sum from the module
		// cache (or GOPROXY) for what the program imports.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s\nthe program:\n%s", name, strings.Join(args, " "), err, out.String(), src)
		}
		return out.String()
	}
	bin := filepath.Join(mod, "embedding")
	run(goTool, "build", "-buildvcs=false", "-o", bin, ".")
	out := run(bin)
	for _, want := range []string{"turn: completed - hello.txt says hi.\n", "replay: matched "} {
		if !strings.Contains(out, want) {
			t.Errorf("the README's program printed\n%s\nwant a line with %q", out, want)
		}
	}
	if strings.Contains(out, "matched 0 of") {
		t.Errorf("the replay compared nothing:\n%s", out)
	}
}

func os_getenv(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
