package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/journal"
)

// A model answer far longer than any model writes (40 MB) is asked for
// once, not three times; the error names the limit and says it is not
// retried, never a bare scanner error; and the journal does not take it in.
func TestAnOversizedModelAnswerIsRefusedOnceByName(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	srv, url := newScriptedResponses(t,
		turnScript{items: []map[string]any{assistantMessage(strings.Repeat("a", 40<<20))}},
		turnScript{items: []map[string]any{assistantMessage(strings.Repeat("b", 40<<20))}},
		turnScript{items: []map[string]any{assistantMessage(strings.Repeat("c", 40<<20))}},
	)
	r := docket(t, []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=sk-e2e", "DOCKET_HOME=" + home},
		"exec", "--skip-git-repo-check", "-C", ws, "-s", "workspace-write", "-a", "never", "go")
	if r.code == 0 {
		t.Fatalf("exit 0 for a 40 MB answer:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "token too long") || !strings.Contains(r.stderr, "openai.MaxResponseBytes") ||
		!strings.Contains(r.stderr, "16 MiB") {
		t.Errorf("the error does not name the limit:\n%s", r.stderr)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("the request was sent %d times; what cannot succeed must not be retried", n)
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(sf.Path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > 1<<20 {
		t.Errorf("the journal grew to %d bytes", info.Size())
	}
}
