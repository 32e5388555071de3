package tui

import (
	"bytes"

	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The two GFM extensions the renderer uses, tables and ~~strikethrough~~,
// as goldmark parser options producing goldmark's own extension nodes
// (goldmark/extension/ast). They follow goldmark v1.7.13's
// extension/table.go and extension/strikethrough.go (MIT licence), less
// the HTML renderers this package does not use.
//
// Why not import goldmark/extension: it is one package, and its package
// initialisers compile the Linkify extension's two URL regexps (with
// {1,256} repeats) whether Linkify is used or not: about 0.5 ms and 260 KB
// at the start of every docket process, `docket sandbox -- true` included
// (docs/decisions.md, "Docket's start-up: library initialisers").

// gfmParserOptions are goldmark's defaults plus tables and strikethrough,
// at the priorities goldmark's extensions register them with.
func gfmParserOptions() []parser.Option {
	return []parser.Option{
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(strikethroughParser{}, 500))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableParagraphTransformer{}, 200))...),
		parser.WithASTTransformers(util.Prioritized(tableASTTransformer{}, 0)),
	}
}

// strikethroughParser parses ~text~ and ~~text~~ into east.Strikethrough.
type strikethroughParser struct{}

type strikethroughDelimiters struct{}

func (strikethroughDelimiters) IsDelimiter(b byte) bool { return b == '~' }

func (strikethroughDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (strikethroughDelimiters) OnMatch(int) gast.Node { return east.NewStrikethrough() }

func (strikethroughParser) Trigger() []byte { return []byte{'~'} }

func (strikethroughParser) Parse(_ gast.Node, block text.Reader, pc parser.Context) gast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	node := parser.ScanDelimiter(line, before, 1, strikethroughDelimiters{})
	if node == nil || node.OriginalLength > 2 || before == '~' {
		return nil
	}
	node.Segment = segment.WithStop(segment.Start + node.OriginalLength)
	block.Advance(node.OriginalLength)
	pc.PushDelimiter(node)
	return node
}

func (strikethroughParser) CloseBlock(gast.Node, parser.Context) {}

// escapedPipeCellListKey holds the cells whose code spans hold an escaped
// pipe (`a\|b`), which tableASTTransformer unescapes once inlines are
// parsed.
var escapedPipeCellListKey = parser.NewContextKey()

type escapedPipeCell struct {
	Cell        *east.TableCell
	Pos         []int
	Transformed bool
}

// tableParagraphTransformer turns a paragraph whose second line is a
// delimiter row (| --- | :-: |) into a table.
type tableParagraphTransformer struct{}

func (b tableParagraphTransformer) Transform(node *gast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	if lines.Len() < 2 {
		return
	}
	for i := 1; i < lines.Len(); i++ {
		delim := lines.At(i)
		alignments := parseTableDelimiter(delim.Value(reader.Source()))
		if alignments == nil {
			continue
		}
		header := b.parseRow(lines.At(i-1), alignments, true, reader, pc)
		if header == nil || len(alignments) != header.ChildCount() {
			return
		}
		table := east.NewTable()
		table.Alignments = alignments
		table.AppendChild(table, east.NewTableHeader(header))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, b.parseRow(lines.At(j), alignments, false, reader, pc))
		}
		node.Lines().SetSliced(0, i-1)
		node.Parent().InsertAfter(node.Parent(), node, table)
		if node.Lines().Len() == 0 {
			node.Parent().RemoveChild(node.Parent(), node)
		} else {
			last := node.Lines().At(i - 2)
			last.Stop-- // the last line's newline
			node.Lines().Set(i-2, last)
		}
	}
}

func (tableParagraphTransformer) parseRow(segment text.Segment, alignments []east.Alignment, isHeader bool, reader text.Reader, pc parser.Context) *east.TableRow {
	source := reader.Source()
	segment = segment.TrimLeftSpace(source)
	segment = segment.TrimRightSpace(source)
	line := segment.Value(source)
	pos := 0
	limit := len(line)
	row := east.NewTableRow(alignments)
	if len(line) > 0 && line[pos] == '|' {
		pos++
	}
	if len(line) > 0 && line[limit-1] == '|' {
		limit--
	}
	i := 0
	for ; pos < limit; i++ {
		alignment := east.AlignNone
		if i >= len(alignments) {
			if !isHeader {
				return row
			}
		} else {
			alignment = alignments[i]
		}
		var escaped *escapedPipeCell
		cell := east.NewTableCell()
		cell.Alignment = alignment
		hasBacktick := false
		closure := pos
		for ; closure < limit; closure++ {
			if line[closure] == '`' {
				hasBacktick = true
			}
			if line[closure] != '|' {
				continue
			}
			if closure == 0 || line[closure-1] != '\\' {
				break
			}
			if hasBacktick {
				if escaped == nil {
					escaped = &escapedPipeCell{Cell: cell}
					list, _ := pc.Get(escapedPipeCellListKey).([]*escapedPipeCell)
					pc.Set(escapedPipeCellListKey, append(list, escaped))
				}
				escaped.Pos = append(escaped.Pos, segment.Start+closure-1)
			}
		}
		seg := text.NewSegment(segment.Start+pos, segment.Start+closure)
		seg = seg.TrimLeftSpace(source)
		seg = seg.TrimRightSpace(source)
		cell.Lines().Append(seg)
		row.AppendChild(row, cell)
		pos = closure + 1
	}
	for ; i < len(alignments); i++ {
		row.AppendChild(row, east.NewTableCell())
	}
	return row
}

// parseTableDelimiter returns the columns' alignments of a delimiter row,
// or nil if line is not one. Each column is -+ with an optional colon at
// either end, spaces around (goldmark matches the four forms with
// regexps; this is the same test by hand).
func parseTableDelimiter(line []byte) []east.Alignment {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	for _, b := range line {
		if !util.IsSpace(b) && b != '-' && b != '|' && b != ':' {
			return nil
		}
	}
	cols := bytes.Split(line, []byte{'|'})
	if util.IsBlank(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && util.IsBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	var alignments []east.Alignment
	for _, col := range cols {
		a, ok := delimiterAlignment(util.TrimRightSpace(util.TrimLeftSpace(col)))
		if !ok {
			return nil
		}
		alignments = append(alignments, a)
	}
	return alignments
}

// delimiterAlignment reads one trimmed delimiter cell: ":--", "--:",
// ":-:" or "--" (at least one dash).
func delimiterAlignment(c []byte) (east.Alignment, bool) {
	left := len(c) > 0 && c[0] == ':'
	if left {
		c = c[1:]
	}
	right := len(c) > 0 && c[len(c)-1] == ':'
	if right {
		c = c[:len(c)-1]
	}
	if len(c) == 0 || len(bytes.Trim(c, "-")) > 0 {
		return east.AlignNone, false
	}
	switch {
	case left && right:
		return east.AlignCenter, true
	case left:
		return east.AlignLeft, true
	case right:
		return east.AlignRight, true
	}
	return east.AlignNone, true
}

// tableASTTransformer unescapes \| inside the code spans of table cells
// (the pipe was escaped only to keep the cell whole).
type tableASTTransformer struct{}

func (tableASTTransformer) Transform(_ *gast.Document, _ text.Reader, pc parser.Context) {
	list, _ := pc.Get(escapedPipeCellListKey).([]*escapedPipeCell)
	if list == nil {
		return
	}
	pc.Set(escapedPipeCellListKey, nil)
	for _, v := range list {
		if v.Transformed {
			continue
		}
		_ = gast.Walk(v.Cell, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
			if !entering || n.Kind() != gast.KindCodeSpan {
				return gast.WalkContinue, nil
			}
			for c := n.FirstChild(); c != nil; {
				next := c.NextSibling()
				if c.Kind() != gast.KindText {
					c = next
					continue
				}
				parent := c.Parent()
				ts := &c.(*gast.Text).Segment
				cur := c
				for _, e := range list {
					for _, pos := range e.Pos {
						if ts.Start <= pos && pos < ts.Stop {
							segment := cur.(*gast.Text).Segment
							n1 := gast.NewRawTextSegment(segment.WithStop(pos))
							n2 := gast.NewRawTextSegment(segment.WithStart(pos + 1))
							parent.InsertAfter(parent, cur, n1)
							parent.InsertAfter(parent, n1, n2)
							parent.RemoveChild(parent, cur)
							cur = n2
							e.Transformed = true
						}
					}
				}
				c = next
			}
			return gast.WalkContinue, nil
		})
	}
}
