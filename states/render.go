package states

import (
	"fmt"
	"strings"
)

// Mermaid renders the table as a Mermaid state diagram. Highlighted edges
// (by "from|event") are drawn thick, for the audit's path view.
func Mermaid() string { return MermaidPath(nil) }

// MermaidPath renders the diagram with the given transitions ("from|event")
// marked as the path a call took.
func MermaidPath(path map[string]bool) string {
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	fmt.Fprintf(&b, "    [*] --> %s\n", WantsApproval)
	for _, e := range Table() {
		for _, f := range e.From {
			label := string(e.Event)
			if path[string(f)+"|"+string(e.Event)] {
				label = "**" + label + "**"
			}
			fmt.Fprintf(&b, "    %s --> %s: %s\n", f, e.To, label)
		}
	}
	fmt.Fprintf(&b, "    %s --> [*]\n", Done)
	return b.String()
}

// Dot renders the table in Graphviz dot.
func Dot() string {
	var b strings.Builder
	b.WriteString("digraph toolcall {\n    rankdir=LR;\n    node [shape=box, style=rounded];\n")
	fmt.Fprintf(&b, "    %q [shape=doublecircle];\n", string(Done))
	for _, e := range Table() {
		for _, f := range e.From {
			fmt.Fprintf(&b, "    %q -> %q [label=%q];\n", string(f), string(e.To), string(e.Event))
		}
	}
	b.WriteString("}\n")
	return b.String()
}
