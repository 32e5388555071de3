package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// The renderer's own table and strikethrough parsers (markdown_gfm.go)
// give the same tree as goldmark's extensions, which the tests may link
// (docket's binary does not): kinds, alignments and text, node by node.
func TestGFMParsersMatchGoldmarksExtensions(t *testing.T) {
	ref := goldmark.New(goldmark.WithExtensions(extension.Strikethrough, extension.Table)).Parser()
	ours := newMarkdown(false).parser
	for _, src := range []string{
		"| a | b |\n|---|---|\n| 1 | 2 |\n",
		"intro line\n| left | right | mid | none |\n|:--|--:|:-:|---|\n| 1 | 2 | 3 | 4 |\n| only one |\n| 1 | 2 | 3 | 4 | 5 |\n",
		"a | b\n-- | --\nc | d\n",
		"| code | pipe |\n|---|---|\n| `a\\|b` | x \\| y |\n",
		"| a |\n| : |\n",
		"| a |\n|:-:-|\n",
		"| a | b |\n| - - | -- |\n",
		"| a | b |\n|---|\n| 1 | 2 |\n",
		"    | indented |\n    |---|\n",
		"| h |\n|  :---  |\n",
		"~~gone~~ and ~one~ and ~~~three~~~ and a~~b~~c\n",
		"~~unclosed and ~~ spaced ~~\n",
		"**bold ~~both~~** `~~code~~`\n",
		"| ~~s~~ | **b** |\n|---|---|\n",
	} {
		want, got := gfmTree(ref.Parse(text.NewReader([]byte(src))), src), gfmTree(ours.Parse(text.NewReader([]byte(src))), src)
		if got != want {
			t.Errorf("%q:\ngot\n%s\nwant (goldmark's extensions)\n%s", src, got, want)
		}
	}
}

// TestGFMParsersFindTheirNodes: the comparison above is not vacuous.
func TestGFMParsersFindTheirNodes(t *testing.T) {
	src := "| a | b |\n|:--|--:|\n| `x\\|y` | ~~z~~ |\n"
	tree := gfmTree(newMarkdown(false).parser.Parse(text.NewReader([]byte(src))), src)
	for _, want := range []string{"Table [left right]", "TableCell 1", "TableCell 2", "Strikethrough", "Text \"x\"", "Text \"|y\""} {
		if !strings.Contains(tree, want) {
			t.Errorf("tree lacks %q:\n%s", want, tree)
		}
	}
}

// gfmTree prints a tree: one line a node, indented by depth, with its
// kind, a table's alignments, a cell's alignment, a text's text.
func gfmTree(doc gast.Node, src string) string {
	var b strings.Builder
	depth := 0
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			depth--
			return gast.WalkContinue, nil
		}
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), n.Kind())
		switch v := n.(type) {
		case *east.Table:
			fmt.Fprintf(&b, " %v", v.Alignments)
		case *east.TableCell:
			fmt.Fprintf(&b, " %d", v.Alignment)
		case *gast.Text:
			fmt.Fprintf(&b, " %q", v.Segment.Value([]byte(src)))
		}
		b.WriteByte('\n')
		depth++
		return gast.WalkContinue, nil
	})
	return b.String()
}
