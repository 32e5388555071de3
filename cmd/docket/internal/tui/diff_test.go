package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

// /diff's pager shows the workspace's diff made safe (a file the model
// wrote may hold escape sequences), its tabs as indentation, and with
// colour its lines coloured by kind.
func TestDiffPagerIsSafeAndColoured(t *testing.T) {
	d := "diff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1,2 +1,2 @@\n func main() {\n-\treturn\n+\tfmt.Println(\"\x1b[2Jgone\")\n }\n"
	safe := safeDiff(d)
	if strings.Contains(safe, "\x1b") || !strings.Contains(safe, `\e[2Jgone`) || !strings.Contains(safe, "+   fmt.Println") {
		t.Fatalf("the diff is not made safe with its tabs expanded:\n%q", safe)
	}
	r := lipgloss.DefaultRenderer()
	prev := r.ColorProfile()
	r.SetColorProfile(2) // termenv.ANSI, without making termenv a direct dependency
	defer r.SetColorProfile(prev)
	colored := colorDiff(safe)
	for _, want := range []string{diffAdd.Render("+   fmt.Println(\"\\e[2Jgone\")"), diffDel.Render("-   return"), diffHunk.Render("@@ -1,2 +1,2 @@")} {
		if !strings.Contains(colored, want) {
			t.Errorf("coloured diff lacks %q:\n%q", want, colored)
		}
	}
	if colored == safe {
		t.Error("no colour was added")
	}
}
