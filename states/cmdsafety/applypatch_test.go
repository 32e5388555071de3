package cmdsafety

import (
	"slices"
	"testing"
)

const hdocPatch = "*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\n"

func TestApplyPatchInvocationTakesOnlyCodexShapes(t *testing.T) {
	tests := []struct {
		name  string
		argv  []string
		ok    bool
		patch string
		dir   string
	}{
		{"direct", []string{"apply_patch", "P"}, true, "P", ""},
		{"direct applypatch", []string{"applypatch", "P"}, true, "P", ""},
		{"heredoc", []string{"bash", "-lc", "apply_patch <<'PATCH'\n" + hdocPatch + "PATCH"}, true, hdocPatch, ""},
		{"heredoc -c unquoted delimiter", []string{"sh", "-c", "applypatch <<EOF\n" + hdocPatch + "EOF\n"}, true, hdocPatch, ""},
		{"zsh double-quoted delimiter", []string{"/bin/zsh", "-lc", "apply_patch <<\"EOF\"\n" + hdocPatch + "EOF"}, true, hdocPatch, ""},
		{"leading cd", []string{"bash", "-lc", "cd foo && apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, true, hdocPatch, "foo"},
		{"cd single-quoted", []string{"bash", "-lc", "cd 'foo bar' && apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, true, hdocPatch, "foo bar"},
		{"cd double-quoted", []string{"bash", "-lc", "cd \"foo bar\" && apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, true, hdocPatch, "foo bar"},

		{"direct with more args", []string{"apply_patch", "P", "x"}, false, "", ""},
		{"direct alone", []string{"apply_patch"}, false, "", ""},
		{"other program", []string{"bash", "-lc", "cat <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"argument too", []string{"bash", "-lc", "apply_patch x <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"second redirect", []string{"bash", "-lc", "apply_patch <<'EOF' > out\n" + hdocPatch + "EOF"}, false, "", ""},
		{"trailing command", []string{"bash", "-lc", "apply_patch <<'EOF'\n" + hdocPatch + "EOF\nrm -rf x"}, false, "", ""},
		{"leading command", []string{"bash", "-lc", "echo hi; apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"cd with ||", []string{"bash", "-lc", "cd foo || apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"cd with a variable", []string{"bash", "-lc", "cd $HOME && apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"cd with two args", []string{"bash", "-lc", "cd a b && apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"other command before &&", []string{"bash", "-lc", "rm -rf x && apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"here-string", []string{"bash", "-lc", "apply_patch <<< 'x'"}, false, "", ""},
		{"dash heredoc", []string{"bash", "-lc", "apply_patch <<-EOF\n" + hdocPatch + "EOF"}, false, "", ""},
		{"background", []string{"bash", "-lc", "apply_patch <<'EOF' &\n" + hdocPatch + "EOF"}, false, "", ""},
		{"assignment prefix", []string{"bash", "-lc", "X=1 apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"quoted name", []string{"bash", "-lc", "'apply_patch' <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"other flag", []string{"bash", "-x", "apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"not a shell", []string{"python3", "-c", "apply_patch <<'EOF'\n" + hdocPatch + "EOF"}, false, "", ""},
		{"parse error", []string{"bash", "-lc", "apply_patch <<'EOF'\n" + hdocPatch + "EOF\n)"}, false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, ok := ApplyPatchInvocation(tc.argv)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tc.ok, inv)
			}
			if inv.Patch != tc.patch || inv.Dir != tc.dir {
				t.Errorf("got patch %q dir %q, want %q %q", inv.Patch, inv.Dir, tc.patch, tc.dir)
			}
		})
	}
}

func TestHeredocCommandIsOneLiteralCommandFedOnlyByHereDocuments(t *testing.T) {
	tests := []struct {
		script string
		want   []string
	}{
		{"python3 <<'PY'\nprint('hello')\nPY", []string{"python3"}},
		{"python3 - <<EOF\nprint(1)\nEOF", []string{"python3", "-"}},
		{"cat <<-EOF\n\thi\nEOF", []string{"cat"}},
		{"python3 <<EOF\n$(rm -rf ~)\nEOF", nil}, // the shell runs the substitution first
		{"python3 <<EOF\n${HOME}\nEOF", nil},     // expands
		{"python3 <<'PY' > out\nx\nPY", nil},     // writes a file
		{"python3 <<'PY'\nx\nPY\nls", nil},       // two commands
		{"$PY <<'PY'\nx\nPY", nil},               // not literal
		{"X=1 python3 <<'PY'\nx\nPY", nil},       // assignment
		{"python3 <<< 'x'", nil},                 // here-string
		{"python3 script.py", nil},               // no here-document
		{"(python3 <<'PY'\nx\nPY\n)", nil},       // subshell
	}
	for _, tc := range tests {
		got, ok := Analyze([]string{"bash", "-lc", tc.script}).HeredocCommand()
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.script, got, ok, tc.want)
		}
	}
	if _, ok := Analyze([]string{"python3", "<<'PY'"}).HeredocCommand(); ok {
		t.Error("an argv that is not a shell wrapper has no here-document command")
	}
}
