package faultinject_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/faultinject"
)

// TestFromEnvArmsWhatTheEnvironmentNames: nothing set arms nothing; a log
// file gets every point passed; a commit point is answered; a bad crash
// spec is refused on stderr, not armed.
func TestFromEnvArmsWhatTheEnvironmentNames(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "points")
	tests := []struct {
		name       string
		env        map[string]string
		armed      bool
		commitAt   string
		wantStderr string
	}{
		{name: "nothing set", env: map[string]string{}},
		{name: "log", env: map[string]string{"DOCKET_FAULT_LOG": logPath}, armed: true},
		{name: "commit points", env: map[string]string{"DOCKET_FAULT_COMMIT_AT": "a,b"}, armed: true, commitAt: "b"},
		{name: "bad crash count", env: map[string]string{"DOCKET_CRASH_AT": "x@zero"}, wantStderr: `the count after @ must be a positive number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			f := faultinject.FromEnv(func(k string) string { return tc.env[k] }, &stderr)
			if (f != nil) != tc.armed {
				t.Fatalf("armed = %v, want %v (stderr %q)", f != nil, tc.armed, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr %q, want it to say %q", stderr.String(), tc.wantStderr)
			}
			if f == nil {
				return
			}
			f.Hit("point-1")
			if tc.commitAt != "" {
				c, ok := f.(interface{ CommitAt(string) bool })
				if !ok || !c.CommitAt(tc.commitAt) || c.CommitAt("elsewhere") {
					t.Errorf("CommitAt does not answer %q alone", tc.commitAt)
				}
			}
			if tc.env["DOCKET_FAULT_LOG"] != "" {
				b, err := os.ReadFile(logPath)
				if err != nil || string(b) != "point-1\n" {
					t.Errorf("the log holds %q (%v), want the point passed", b, err)
				}
			}
		})
	}
}

// DOCKET_TEST_REQUIREMENTS names the one requirements file a docketfault
// build reads in place of the managed ones; unset, none is named.
func TestRequirementsFilesFromTheEnvironment(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"DOCKET_TEST_REQUIREMENTS": "/tmp/r.toml"}, []string{"/tmp/r.toml"}},
		{map[string]string{}, nil},
	} {
		got := faultinject.RequirementsFiles(func(k string) string { return tc.env[k] })
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("env %v: %v, want %v", tc.env, got, tc.want)
		}
	}
}
