package replaytest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/replay/replaytest"
)

// exampleT stands in for the *testing.T a test passes to Verify, so that
// the example can run: it prints the first line of what Verify reports.
type exampleT struct{ testing.TB }

func (exampleT) Helper() {}

func (exampleT) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Println("FAIL:", msg[:strings.Index(msg, "\n")])
}

func (exampleT) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// In a test of your own, pass t:
//
//	func TestRecordedSession(t *testing.T) {
//		replaytest.Verify(t, "testdata/session.docket")
//		replaytest.Verify(t, "testdata/session.docket", replaytest.CurrentRules("", "../.."))
//	}
//
// The journal here was recorded with a user rules file that forbids `git
// push` and allows `printf`. Replayed as recorded it matches; replayed
// with rules files that no longer forbid `git push`, it fails at the first
// decision that changed.
func ExampleVerify() {
	var t exampleT
	fmt.Println("as recorded:", replaytest.Verify(t, "testdata/rules.docket"))

	home, _ := os.MkdirTemp("", "docket-home")
	defer os.RemoveAll(home)
	os.MkdirAll(filepath.Join(home, "rules"), 0o755)
	os.WriteFile(filepath.Join(home, "rules", "default.rules"), []byte(
		`prefix_rule(pattern=["git", "pull"], decision="forbidden")`+"\n"+
			`prefix_rule(pattern=["printf"], decision="allow")`+"\n"), 0o644)
	fmt.Println("with today's rules:", replaytest.Verify(t, "testdata/rules.docket", replaytest.CurrentRules(home, "")))
	// Output:
	// as recorded: true
	// FAIL: replay of testdata/rules.docket (current rules, 1 files) diverged at seq 5, call c1, record transition
	// with today's rules: false
}
