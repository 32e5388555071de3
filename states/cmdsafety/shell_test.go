package cmdsafety

import (
	"reflect"
	"testing"
)

func TestPlainScriptsSplitIntoTheirCommands(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want [][]string
	}{
		{"non-wrapper argv is its own command", []string{"ls", "-l"}, [][]string{{"ls", "-l"}}},
		{"single command", []string{"bash", "-lc", "ls -1"}, [][]string{{"ls", "-1"}}},
		{"all four operators", []string{"bash", "-lc", "ls && pwd; echo 'hi there' | wc -l || true"},
			[][]string{{"ls"}, {"pwd"}, {"echo", "hi there"}, {"wc", "-l"}, {"true"}}},
		{"newline separates commands", []string{"bash", "-c", "ls\npwd"}, [][]string{{"ls"}, {"pwd"}}},
		{"sh -c", []string{"sh", "-c", "cat a"}, [][]string{{"cat", "a"}}},
		{"zsh -lc", []string{"zsh", "-lc", "cat a"}, [][]string{{"cat", "a"}}},
		{"absolute shell path", []string{"/bin/bash", "-lc", "cat a"}, [][]string{{"cat", "a"}}},
		{"double quotes removed", []string{"bash", "-lc", `grep -n "a b" f`}, [][]string{{"grep", "-n", "a b", "f"}}},
		{"mixed quote concatenation", []string{"bash", "-lc", `echo "/usr"'/'"local"/bin`}, [][]string{{"echo", "/usr/local/bin"}}},
		{"quoted glob is a literal", []string{"bash", "-lc", `rg -g"*.py" x`}, [][]string{{"rg", "-g*.py", "x"}}},
		{"backslash escape outside quotes", []string{"bash", "-lc", `echo a\ b`}, [][]string{{"echo", "a b"}}},
		{"escaped quote inside double quotes", []string{"bash", "-lc", `echo "a\"b"`}, [][]string{{"echo", `a"b`}}},
		{"other backslash kept inside double quotes", []string{"bash", "-lc", `echo "a\nb"`}, [][]string{{"echo", `a\nb`}}},
		{"tilde inside a word is literal", []string{"bash", "-lc", "git log HEAD~1"}, [][]string{{"git", "log", "HEAD~1"}}},
		{"comment dropped", []string{"bash", "-lc", "ls # note"}, [][]string{{"ls"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Commands(tt.argv)
			if !ok || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Commands(%q) = %q, %v; want %q, true", tt.argv, got, ok, tt.want)
			}
		})
	}
}

func TestDynamicScriptsAreNotSplit(t *testing.T) {
	for name, script := range map[string]string{
		"variable":               "echo $HOME",
		"braced variable":        `echo "${USER}"`,
		"variable in dquotes":    `echo "hi $USER"`,
		"command substitution":   "echo $(pwd)",
		"backticks":              "echo `pwd`",
		"arithmetic":             "echo $((1+2))",
		"process substitution":   "cat <(ls)",
		"glob star":              "ls *.go",
		"glob question":          "ls a?.go",
		"glob class":             "ls [ab].go",
		"brace expansion":        "echo {a,b}",
		"leading tilde":          "ls ~/x",
		"zsh equals expansion":   "echo =ls",
		"ansi-c quoting":         "echo $'a'",
		"output redirection":     "ls > out.txt",
		"append redirection":     "ls >> out.txt",
		"input redirection":      "cat < in",
		"fd redirection":         "ls 2>&1",
		"here-doc":               "cat <<EOF\nx\nEOF",
		"here-string":            "cat <<< x",
		"subshell":               "(ls)",
		"nested subshell":        "ls || (pwd && echo hi)",
		"block":                  "{ ls; }",
		"function":               "f() { ls; }; f",
		"if":                     "if true; then ls; fi",
		"for":                    "for a in b; do ls; done",
		"while":                  "while true; do ls; done",
		"test clause":            "[[ -f x ]]",
		"arith command":          "((x=1))",
		"assignment prefix":      "FOO=bar ls",
		"bare assignment":        "FOO=bar",
		"declaration":            "export FOO=bar",
		"negation":               "! ls",
		"background":             "ls & pwd",
		"pipe stderr":            "ls |& cat",
		"trailing operator":      "ls &&",
		"leading operator":       "&& ls",
		"double separator":       "ls ;; pwd",
		"empty pipeline segment": "ls | | wc",
		"unterminated quote":     "echo 'a",
		"empty script":           "",
		"only a comment":         "# nothing",
		"time keyword":           "time ls",
		"coproc":                 "coproc ls",
	} {
		t.Run(name, func(t *testing.T) {
			if got, ok := Commands([]string{"bash", "-lc", script}); ok {
				t.Fatalf("Commands(bash -lc %q) = %q, true; want not plain", script, got)
			}
		})
	}
}

func TestOnlyExactShellWrapperShapesAreScripts(t *testing.T) {
	for _, argv := range [][]string{
		{"bash", "-lc", "git", "status"},
		{"bash", "-x", "ls"},
		{"bash", "ls"},
		{"fish", "-c", "ls"},
		{"python3", "-c", "print(1)"},
	} {
		if _, _, ok := ShellScript(argv); ok {
			t.Errorf("ShellScript(%q) ok; want not a shell wrapper", argv)
		}
	}
}

func TestLiteralCommandsReachIntoComplexScripts(t *testing.T) {
	got := LiteralCommands([]string{"bash", "-lc", `if test -d x; then git push "$R" main; fi; echo "$(rm -rf /tmp/y)"`})
	want := [][]string{{"test", "-d", "x"}, {"git", "push"}, {"echo"}, {"rm", "-rf", "/tmp/y"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("LiteralCommands = %q; want %q", got, want)
	}
	if LiteralCommands([]string{"ls"}) != nil {
		t.Fatal("a non-wrapper argv has no literal script commands")
	}
}
