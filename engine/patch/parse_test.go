package patch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseStructure(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Op
	}{
		{
			name: "every operation kind with line numbers",
			text: "*** Begin Patch\n*** Add File: a.txt\n+x\n+\n*** Delete File: b.txt\n*** Update File: c.txt\n*** Move to: d/c.txt\n@@ func f()\n ctx\n-old\n+new\n*** End of File\n*** End Patch",
			want: []Op{
				{Kind: KindAdd, Path: "a.txt", Contents: "x\n\n", Line: 2},
				{Kind: KindDelete, Path: "b.txt", Line: 5},
				{Kind: KindUpdate, Path: "c.txt", MovePath: "d/c.txt", Line: 6, Hunks: []Hunk{{
					Context: []string{"func f()"}, Old: []string{"ctx", "old"}, New: []string{"ctx", "new"}, EOF: true, Line: 8,
				}}},
			},
		},
		{
			name: "first @@ optional, later hunks need one",
			text: "*** Begin Patch\n*** Update File: f\n a\n-b\n@@\n+c\n*** End Patch",
			want: []Op{{Kind: KindUpdate, Path: "f", Line: 2, Hunks: []Hunk{
				{Old: []string{"a", "b"}, New: []string{"a"}, Line: 3},
				{New: []string{"c"}, Line: 5},
			}}},
		},
		{
			name: "consecutive @@ lines all become context",
			text: "*** Begin Patch\n*** Update File: f\n@@ class A\n@@ def m\n@@\n-x\n*** End Patch",
			want: []Op{{Kind: KindUpdate, Path: "f", Line: 2, Hunks: []Hunk{
				{Context: []string{"class A", "def m"}, Old: []string{"x"}, Line: 3},
			}}},
		},
		{
			name: "unified diff header keeps only its trailing text",
			text: "*** Begin Patch\n*** Update File: f\n@@ -1,2 +1,3 @@ int main()\n-x\n@@ -7 +8 @@\n-y\n*** End Patch",
			want: []Op{{Kind: KindUpdate, Path: "f", Line: 2, Hunks: []Hunk{
				{Context: []string{"int main()"}, Old: []string{"x"}, Line: 3},
				{Old: []string{"y"}, Line: 5},
			}}},
		},
		{
			name: "an @@ line that only looks like a range stays context",
			text: "*** Begin Patch\n*** Update File: f\n@@ -1,x +1 @@ y\n-x\n*** End Patch",
			want: []Op{{Kind: KindUpdate, Path: "f", Line: 2, Hunks: []Hunk{
				{Context: []string{"-1,x +1 @@ y"}, Old: []string{"x"}, Line: 3},
			}}},
		},
		{
			name: "empty line inside a hunk is an empty context line",
			text: "*** Begin Patch\n*** Update File: f\n@@\n a\n\n-b\n*** End Patch",
			want: []Op{{Kind: KindUpdate, Path: "f", Line: 2, Hunks: []Hunk{
				{Old: []string{"a", "", "b"}, New: []string{"a", ""}, Line: 3},
			}}},
		},
		{
			name: "paths keep inner spaces, lose outer ones",
			text: "*** Begin Patch\n*** Add File:   my file.txt  \n+x\n*** End Patch",
			want: []Op{{Kind: KindAdd, Path: "my file.txt", Contents: "x\n", Line: 2}},
		},
		{
			name: "a context line may itself look like a marker when indented inside a hunk",
			text: "*** Begin Patch\n*** Update File: f.md\n@@\n ***bold***\n-x\n*** End Patch",
			want: []Op{{Kind: KindUpdate, Path: "f.md", Line: 2, Hunks: []Hunk{
				{Old: []string{"***bold***", "x"}, New: []string{"***bold***"}, Line: 3},
			}}},
		},
		{
			name: "heredoc line numbers count from the original text",
			text: "<<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n",
			want: []Op{{Kind: KindDelete, Path: "x", Line: 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			for i := range p.Ops {
				for j := range p.Ops[i].Hunks {
					p.Ops[i].Hunks[j].keep = nil // checked by the golden cases
				}
			}
			if !reflect.DeepEqual(p.Ops, tt.want) {
				t.Errorf("got  %#v\nwant %#v", p.Ops, tt.want)
			}
		})
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		line     int
		contains string
	}{
		{"no operations", "*** Begin Patch\n*** End Patch\n", 2, "no file operations"},
		{"NUL byte", "*** Begin Patch\n*** Add File: a\n+a\x00\n*** End Patch", 3, "NUL byte"},
		{"invalid UTF-8", "*** Begin Patch\n*** Add File: a\n+\xff\n*** End Patch", 3, "not valid UTF-8"},
		{"update without hunks before another op", "*** Begin Patch\n*** Update File: a\n*** Delete File: b\n*** End Patch", 2, "has no hunks"},
		{"move without path", "*** Begin Patch\n*** Update File: a\n*** Move to:\n@@\n-x\n*** End Patch", 3, "needs a file path"},
		{"junk between operations", "*** Begin Patch\n*** Delete File: a\njunk\n*** End Patch", 3, `got "junk"`},
		{"star line ends an update and is not an operation", "*** Begin Patch\n*** Update File: a\n@@\n-x\n*** Bogus\n*** End Patch", 5, `got "*** Bogus"`},
		{"second hunk needs @@", "*** Begin Patch\n*** Update File: a\n@@\n-x\n\nstray\n*** End Patch", 6, "expected an '@@' line"},
		{"end of file marker alone", "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch", 3, "*** End of File"},
		{"heredoc without delimiter at the end", "<<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch", 1, "expected '*** Begin Patch'"},
		{"only whitespace", " \n\t\n", 1, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.text)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want *ParseError", err, err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Error(), tt.contains) {
				t.Errorf("got line %d %q, want line %d containing %q", pe.Line, pe.Error(), tt.line, tt.contains)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	p, err := Parse("*** Begin Patch\n*** Add File: sub/../a.txt\n+x\n*** Delete File: /etc/../tmp/b\n*** Update File: ../out.txt\n*** Move to: /abs/c.txt\n@@\n-x\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	got := p.Paths("/work/proj")
	want := []Change{
		{Kind: KindAdd, Path: "/work/proj/a.txt"},
		{Kind: KindDelete, Path: "/tmp/b"},
		{Kind: KindUpdate, Path: "/work/out.txt", MovePath: "/abs/c.txt"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
