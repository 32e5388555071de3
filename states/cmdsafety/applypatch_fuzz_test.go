package cmdsafety

import (
	"strings"
	"testing"
)

// FuzzApplyPatchInvocation feeds arbitrary scripts to the shell apply_patch
// recogniser and the here-document command: nothing may panic, a script
// recognised as apply_patch is one statement naming apply_patch, its patch
// is a part of the script, and a here-document command never comes from a
// script with an expanding body.
func FuzzApplyPatchInvocation(f *testing.F) {
	for _, s := range []string{
		"apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF",
		"cd 'a b' && applypatch <<EOF\nx\nEOF\n",
		"apply_patch <<EOF\n$(id)\nEOF",
		"python3 <<'PY'\nprint(1)\nPY",
		"cat <<-X\n\tx\nX\nls",
		"apply_patch <<< x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		for _, shell := range []string{"bash", "sh", "zsh"} {
			argv := []string{shell, "-lc", script}
			if inv, ok := ApplyPatchInvocation(argv); ok {
				if !strings.Contains(script, "apply_patch") && !strings.Contains(script, "applypatch") {
					t.Fatalf("%q recognised as apply_patch", script)
				}
				if !strings.Contains(script, inv.Patch) {
					t.Fatalf("patch %q is not part of the script %q", inv.Patch, script)
				}
			}
			if cmd, ok := Analyze(argv).HeredocCommand(); ok {
				if len(cmd) == 0 {
					t.Fatalf("%q: empty here-document command", script)
				}
				if Analyze(argv).KnownSafe() && strings.Contains(script, "<<") {
					t.Fatalf("%q: a here-document script is known-safe", script)
				}
			}
		}
	})
}
