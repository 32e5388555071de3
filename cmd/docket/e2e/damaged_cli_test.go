package e2e

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// A finished session with one record damaged in the middle: replay and
// audit each name the file and what they could not read, and fail.
func TestReplayAndAuditOfADamagedJournalNameTheFile(t *testing.T) {
	t.Parallel()
	c := newCrashRun(t)
	r := docket(t, []string{"DOCKET_CRASH_AT="}, "exec", "--skip-git-repo-check", "--home", c.home, "-C", c.ws, "-a", "on-failure",
		"-s", "workspace-write", "--model-script", c.script, "--decisions", "approved,approved,approved", "go")
	if r.code != 0 {
		t.Fatalf("exec exited %d:\n%s", r.code, r.stderr)
	}
	path := c.journalPath(t)
	var recs []events.Record
	if err := journal.Scan(path, 1, func(r events.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	mid := recs[len(recs)/2]
	wire, err := mid.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, wire)
	if i < 0 {
		t.Fatal("record not stored verbatim")
	}
	for ; i >= 0; i = bytes.LastIndex(b[:i], wire) {
		b[i+len(wire)/2] ^= 0x02
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	seq, rec := fmt.Sprintf("seq %d", mid.Seq), fmt.Sprintf("record %d", mid.Seq)
	tests := []struct {
		name string
		args []string
	}{
		{"replay", []string{"replay", "--home", c.home, path}},
		{"audit", []string{"audit", "--home", c.home, path}},
		{"audit --unsandboxed", []string{"audit", "--unsandboxed", "--home", c.home, path}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := docket(t, nil, tt.args...)
			out := r.stdout + r.stderr
			if r.code != 1 || !strings.Contains(out, path) || !strings.Contains(out, seq) && !strings.Contains(out, rec) {
				t.Fatalf("exit %d; want 1 and output naming %s and %s:\n%s", r.code, path, seq, out)
			}
			if strings.Contains(out, "\nno call ran without a sandbox\n") {
				t.Fatalf("vouches for records it could not read:\n%s", out)
			}
		})
	}
}
