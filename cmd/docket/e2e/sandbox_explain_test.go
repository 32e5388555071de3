package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestSandboxExplainAfterARun runs a real command under `docket sandbox
// --explain` and checks that every layer the helper reported is put into
// words on stderr, while stdout stays the command's own.
func TestSandboxExplainAfterARun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := docket(t, nil, "sandbox", "--explain", "--verbose", "-s", "workspace-write", "-C", dir, "--", "sh", "-c", "echo hi")
	if r.code != 0 || r.stdout != "hi\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`layers=(\S*) exit=0`).FindStringSubmatch(r.stderr)
	if m == nil || m[1] == "" {
		t.Fatalf("no layers reported on stderr:\n%s", r.stderr)
	}
	_, explained, ok := strings.Cut(r.stderr, "ran under:\n")
	if !ok {
		t.Fatalf("no explanation after the run:\n%s", r.stderr)
	}
	// Layer names may hold commas themselves ("cgroup-v1:memory,pids").
	for _, l := range strings.Split(m[1], ",") {
		if !strings.Contains(explained, l) {
			t.Errorf("reported layer %q is not explained:\n%s", l, explained)
		}
	}
	if strings.Contains(explained, "is not described by this version") {
		t.Errorf("a reported layer has no words:\n%s", explained)
	}
}
