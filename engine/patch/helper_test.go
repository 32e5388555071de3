package patch

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the tests run this test binary as the apply_patch helper,
// the way the engine runs the docket binary.
func TestMain(m *testing.M) {
	if IsHelper(os.Args) {
		os.Exit(HelperMain(os.Args))
	}
	os.Exit(m.Run())
}

// runHelperProcess runs the test binary as the helper and returns its
// stdout, stderr and exit code.
func runHelperProcess(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{HelperArg}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	default:
		t.Fatal(err)
		return "", "", -1
	}
}

func TestHelperProcess(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		patch      string
		viaStdin   bool
		wantCode   int
		wantStdout string
		wantStderr string // substring
		wantFiles  map[string]string
	}{
		{
			name:       "applies and prints the summary",
			files:      map[string]string{"a.txt": "a\n", "gone.txt": "g\n"},
			patch:      "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Add File: sub/n.txt\n+n\n*** Delete File: gone.txt\n*** End Patch\n",
			wantStdout: "Success. Updated the following files:\nA sub/n.txt\nM a.txt\nD gone.txt\n",
			wantFiles:  map[string]string{"a.txt": "b\n", "sub/n.txt": "n\n"},
		},
		{
			name:       "reads the patch from stdin",
			patch:      "<<'EOF'\n*** Begin Patch\n*** Add File: s.txt\n+s\n*** End Patch\nEOF\n",
			viaStdin:   true,
			wantStdout: "Success. Updated the following files:\nA s.txt\n",
			wantFiles:  map[string]string{"s.txt": "s\n"},
		},
		{
			name:       "a failing hunk changes nothing and exits 1",
			files:      map[string]string{"a.txt": "a\n"},
			patch:      "*** Begin Patch\n*** Add File: new.txt\n+n\n*** Update File: a.txt\n@@\n-zzz\n+b\n*** End Patch\n",
			wantCode:   1,
			wantStderr: "Update File a.txt: hunk 1 (patch line 5): could not find the expected lines:\nzzz\nNo files were changed.\n",
			wantFiles:  map[string]string{"a.txt": "a\n"},
		},
		{
			name:       "a parse error exits 1",
			patch:      "*** Begin Patch\n*** End Patch\n",
			wantCode:   1,
			wantStderr: "invalid patch: line 2: the patch has no file operations",
			wantFiles:  map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			writeTree(t, work, tt.files)
			patchFile, stdin := "-", tt.patch
			if !tt.viaStdin {
				patchFile, stdin = filepath.Join(t.TempDir(), "patch.txt"), ""
				mustWrite(t, patchFile, []byte(tt.patch))
			}
			stdout, stderr, code := runHelperProcess(t, stdin, work, patchFile)
			if code != tt.wantCode || stdout != tt.wantStdout || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d stdout %q stderr %q\nwant exit %d stdout %q stderr containing %q",
					code, stdout, stderr, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
			if tt.wantCode == 0 && stderr != "" {
				t.Errorf("stderr on success: %q", stderr)
			}
			assertTree(t, readTree(t, work), tt.wantFiles)
		})
	}
}

func TestHelperUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"/tmp"}, {"/tmp", "a", "extra"}} {
		_, stderr, code := runHelperProcess(t, "", args...)
		if code != 1 || !strings.Contains(stderr, "usage:") {
			t.Errorf("args %q: exit %d stderr %q", args, code, stderr)
		}
	}
	_, stderr, code := runHelperProcess(t, "", t.TempDir(), filepath.Join(t.TempDir(), "missing"))
	if code != 1 || !strings.Contains(stderr, "reading the patch") {
		t.Errorf("missing patch file: exit %d stderr %q", code, stderr)
	}
}

func TestIsHelper(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"docket", HelperArg, "/w", "p"}, true},
		{[]string{"docket", HelperArg}, true},
		{[]string{"docket", "exec"}, false},
		{[]string{"docket"}, false},
		{nil, false},
	} {
		if got := IsHelper(tt.args); got != tt.want {
			t.Errorf("IsHelper(%q) = %v", tt.args, got)
		}
	}
}
