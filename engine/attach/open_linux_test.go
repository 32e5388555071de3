package attach

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenBeneathRefusesEscapes: a symlink planted in the workspace after
// resolve checked the path (here: simply opened without resolve) would
// hand over an outside file to a plain open; openBeneath refuses it in the
// kernel, and still follows links that stay inside.
func TestOpenBeneathRefusesEscapes(t *testing.T) {
	outside := tree(t, map[string]string{"secret.txt": "secret\n"})
	root := tree(t, map[string]string{"in.txt": "in\n", "dir/x.txt": "x\n"})
	for name, target := range map[string]string{
		"out-link":     filepath.Join(outside, "secret.txt"),
		"dir/up-link":  "../../" + filepath.Base(outside) + "/secret.txt",
		"in-link":      "in.txt",
		"dir/rel-link": "../in.txt",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	// Without the protection the escape works.
	if b, err := os.ReadFile(filepath.Join(root, "out-link")); err != nil || string(b) != "secret\n" {
		t.Fatalf("plain open of the planted link: %q, %v", b, err)
	}
	for _, tc := range []struct {
		rel  string
		want string // content, or "" for refused
	}{
		{"in.txt", "in\n"}, {"in-link", "in\n"}, {"dir/rel-link", "in\n"},
		{"out-link", ""}, {"dir/up-link", ""}, {"../" + filepath.Base(outside) + "/secret.txt", ""},
	} {
		f, err := openBeneath(root, tc.rel)
		if tc.want == "" {
			if err == nil {
				f.Close()
				t.Errorf("openBeneath(%s) opened an outside file", tc.rel)
			} else if !errors.Is(err, ErrOutside) {
				t.Errorf("openBeneath(%s) = %v, want ErrOutside", tc.rel, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("openBeneath(%s): %v", tc.rel, err)
			continue
		}
		b := make([]byte, 16)
		n, _ := f.Read(b)
		f.Close()
		if string(b[:n]) != tc.want {
			t.Errorf("openBeneath(%s) read %q", tc.rel, b[:n])
		}
	}
}
