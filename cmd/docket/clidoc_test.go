package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The generated flag reference in docs/cli.md lies between these lines.
const (
	flagsBegin = "<!-- BEGIN flags: generated from the command tree; `go test ./cmd/docket -run TestEveryFlagIsInTheCLIDoc -update` rewrites it -->\n"
	flagsEnd   = "<!-- END flags -->\n"
)

// TestEveryFlagIsInTheCLIDoc: docs/cli.md's flag reference is exactly the
// flags cobra knows, of every command, with their --help line, so the
// reference cannot fall behind the binary.
func TestEveryFlagIsInTheCLIDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "cli.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	before, rest, ok1 := strings.Cut(doc, flagsBegin)
	got, after, ok2 := strings.Cut(rest, flagsEnd)
	if !ok1 || !ok2 {
		t.Fatalf("docs/cli.md has no %q ... %q section", flagsBegin, flagsEnd)
	}
	root := newRootCmd(&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}, nil)
	// What cobra adds when it executes: `docket completion SHELL`, `docket help`.
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	want := flagReference(root)
	if got != want {
		if *updateGolden {
			if err := os.WriteFile(path, []byte(before+flagsBegin+want+flagsEnd+after), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("docs/cli.md's flag reference is not the command tree's (-update rewrites it); want:\n%s", want)
	}
}

// flagReference is one table a command with flags: each flag cobra knows
// (not hidden, not --help) with its shorthand, value and --help line.
func flagReference(root *cobra.Command) string {
	var b strings.Builder
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		var rows []string
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			name, usage := pflag.UnquoteUsage(f)
			spelled := "--" + f.Name
			if name != "" {
				spelled += " " + name // as --help spells it
			}
			if f.Shorthand != "" {
				spelled = "-" + f.Shorthand + ", " + spelled
			}
			if d := f.DefValue; d != "" && d != "false" && d != "[]" && d != "0" && !strings.Contains(usage, "default") {
				usage += fmt.Sprintf(" (default %s)", d)
			}
			rows = append(rows, fmt.Sprintf("| `%s` | %s |\n", spelled, strings.ReplaceAll(usage, "|", `\|`)))
		})
		if len(rows) > 0 {
			fmt.Fprintf(&b, "\n### `%s`\n\n| flag | meaning |\n|---|---|\n%s", c.CommandPath(), strings.Join(rows, ""))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	b.WriteString("\n")
	return b.String()
}
