package prompt_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docket-engine/docket/engine/prompt"
)

var update = flag.Bool("update", false, "rewrite golden files")

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree lays out home and a git project with AGENTS.md at the root and in
// sub/, and returns (root, home, cwd) with cwd = repo/sub/deeper.
func tree(t *testing.T) (string, string, string) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(home, "AGENTS.md"), "Global: answer in English.\n")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, "AGENTS.md"), "Project: run `go test ./...` before finishing.\n")
	write(t, filepath.Join(repo, "sub", "AGENTS.md"), "Sub: this package has no exported API.\n")
	cwd := filepath.Join(repo, "sub", "deeper")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	// Above the project: must not be read.
	write(t, filepath.Join(root, "AGENTS.md"), "Outside the project.\n")
	return root, home, cwd
}

func TestBuildMatchesGolden(t *testing.T) {
	root, home, cwd := tree(t)
	res, err := prompt.Build(prompt.Input{
		Home: home, Cwd: cwd, ApprovalPolicy: "on-request", SandboxMode: "workspace-write",
		WritableRoots: []string{cwd, "/tmp"}, ProjectDocMaxBytes: prompt.DefaultProjectDocMaxBytes,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(res.Instructions, root, "$ROOT")
	path := filepath.Join("testdata", "build.golden.md")
	if *update {
		write(t, path, got)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("instructions differ from %s:\n%s", path, got)
	}
}

func docPaths(docs []prompt.Doc) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Path)
	}
	return out
}

func TestLoadDocsOrderAndProjectRoot(t *testing.T) {
	root, home, cwd := tree(t)
	docs, err := prompt.LoadDocs(home, cwd, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(home, "AGENTS.md"), filepath.Join(root, "repo", "AGENTS.md"), filepath.Join(root, "repo", "sub", "AGENTS.md")}
	if strings.Join(docPaths(docs), "|") != strings.Join(want, "|") {
		t.Errorf("docs %v, want %v", docPaths(docs), want)
	}
}

func TestLoadDocsGitFileMarksTheRoot(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "AGENTS.md"), "outside")
	wt := filepath.Join(root, "worktree")
	write(t, filepath.Join(wt, ".git"), "gitdir: /elsewhere\n")
	write(t, filepath.Join(wt, "AGENTS.md"), "inside")
	docs, err := prompt.LoadDocs("", wt, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Text != "inside" {
		t.Errorf("docs %v, want only the worktree's", docPaths(docs))
	}
}

func TestLoadDocsWithoutGitWalksToTheFilesystemRoot(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "AGENTS.md"), "top")
	write(t, filepath.Join(root, "a", "AGENTS.md"), "mid")
	cwd := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	docs, err := prompt.LoadDocs("", cwd, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	// Ancestors of the temp dir may hold their own AGENTS.md; ours come last, in order.
	if len(docs) < 2 || docs[len(docs)-2].Text != "top" || docs[len(docs)-1].Text != "mid" {
		t.Errorf("docs %v, want ...top, mid", docPaths(docs))
	}
}

// TestLoadDocsPassesASandboxStub: an empty 0555 .git (the stub a session
// keeps in /tmp) marks no project root; the walk goes on upwards.
func TestLoadDocsPassesASandboxStub(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "AGENTS.md"), "top")
	write(t, filepath.Join(root, "a", "AGENTS.md"), "mid")
	stub := filepath.Join(root, "a", ".git")
	if err := os.Mkdir(stub, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(stub, 0o755) })
	cwd := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	docs, err := prompt.LoadDocs("", cwd, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 2 || docs[len(docs)-2].Text != "top" || docs[len(docs)-1].Text != "mid" {
		t.Errorf("docs %v, want ...top, mid (the stub is no root)", docPaths(docs))
	}
}

func TestLoadDocsCap(t *testing.T) {
	for _, tc := range []struct {
		name      string
		max       int64
		wantTexts []string
		truncated []bool
	}{
		{"all fit", 1000, []string{"HHHH", "RRRR", "SSSS"}, []bool{false, false, false}},
		{"exactly at the cap", 8, []string{"HHHH", "RRRR"}, []bool{false, false}},
		{"second file cut", 6, []string{"HHHH", "RR"}, []bool{false, true}},
		{"first file cut", 3, []string{"HHH"}, []bool{true}},
		{"zero disables", 0, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			home := filepath.Join(root, "home")
			repo := filepath.Join(root, "repo")
			write(t, filepath.Join(home, "AGENTS.md"), "HHHH")
			write(t, filepath.Join(repo, ".git", "HEAD"), "x")
			write(t, filepath.Join(repo, "AGENTS.md"), "RRRR")
			write(t, filepath.Join(repo, "s", "AGENTS.md"), "SSSS")
			docs, err := prompt.LoadDocs(home, filepath.Join(repo, "s"), tc.max)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != len(tc.wantTexts) {
				t.Fatalf("docs %v, want %v", docs, tc.wantTexts)
			}
			for i, d := range docs {
				if d.Text != tc.wantTexts[i] || d.Truncated != tc.truncated[i] {
					t.Errorf("doc %d = %q truncated=%v, want %q truncated=%v", i, d.Text, d.Truncated, tc.wantTexts[i], tc.truncated[i])
				}
			}
		})
	}
}

func TestLoadDocsCutsWholeCharacters(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".git", "HEAD"), "x")
	write(t, filepath.Join(root, "AGENTS.md"), "ab€€") // € is 3 bytes
	for max := int64(1); max <= 8; max++ {
		docs, err := prompt.LoadDocs("", root, max)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) == 1 && (!utf8.ValidString(docs[0].Text) || int64(len(docs[0].Text)) > max) {
			t.Errorf("max %d: %q is not whole characters within the cap", max, docs[0].Text)
		}
	}
}

func TestLoadDocsHomeInsideProjectIsReadOnce(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".git", "HEAD"), "x")
	write(t, filepath.Join(root, "AGENTS.md"), "once")
	docs, err := prompt.LoadDocs(root, root, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Errorf("docs %v, want one", docPaths(docs))
	}
}

func TestLoadDocsSkipsADirectoryNamedAGENTSmd(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".git", "HEAD"), "x")
	if err := os.MkdirAll(filepath.Join(root, "AGENTS.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	docs, err := prompt.LoadDocs("", root, 1000)
	if err != nil || len(docs) != 0 {
		t.Errorf("docs %v err %v, want none", docPaths(docs), err)
	}
}

func TestPolicyStatesPolicyAndSandbox(t *testing.T) {
	for _, tc := range []struct {
		policy, mode string
		network      bool
		want         []string
	}{
		{"untrusted", "read-only", false, []string{"untrusted", "needs the user's approval", "read-only", "cannot write"}},
		{"on-failure", "workspace-write", false, []string{"on-failure", "run again without the sandbox", "may write under /w, /extra", "Network access is blocked"}},
		{"on-request", "workspace-write", true, []string{"require_escalated", "justification", "Network access is allowed"}},
		{"never", "danger-full-access", false, []string{"never", "Do not request escalation", "full permissions"}},
		{"on-request", "external-sandbox", false, []string{"external"}},
	} {
		t.Run(tc.policy+"/"+tc.mode, func(t *testing.T) {
			got, err := prompt.Policy(prompt.Input{Cwd: "/w", WritableRoots: []string{"/w", "/extra"}, ApprovalPolicy: tc.policy, SandboxMode: tc.mode, NetworkAccess: tc.network})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}

func TestBuildRejectsUnknownPolicyAndMode(t *testing.T) {
	if _, err := prompt.Build(prompt.Input{ApprovalPolicy: "sometimes", SandboxMode: "read-only"}); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("err %v, want it to name the policy", err)
	}
	if _, err := prompt.Build(prompt.Input{ApprovalPolicy: "never", SandboxMode: "chroot"}); err == nil || !strings.Contains(err.Error(), `"chroot"`) {
		t.Errorf("err %v, want it to name the mode", err)
	}
}
