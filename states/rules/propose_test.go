package rules

import (
	"strings"
	"testing"
)

func TestProposedAmendmentsAreTheFirstCommandNeedingApproval(t *testing.T) {
	tests := []struct {
		argv []string
		want []string
	}{
		{[]string{"cargo", "test", "--release"}, []string{"cargo", "test", "--release"}},
		{[]string{"bash", "-lc", "cd sub && make test"}, []string{"make", "test"}},
		{[]string{"bash", "-lc", "ls && pwd"}, []string{"ls"}},
		{[]string{"bash", "-lc", "make $X"}, nil},
		{[]string{"python3", "-c"}, nil},
		{[]string{"bash", "-lc", "ls; python3"}, nil},
		{[]string{"git", "push"}, []string{"git", "push"}},
	}
	for _, tt := range tests {
		got := ProposeAmendment(tt.argv)
		if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") || (got == nil) != (tt.want == nil) {
			t.Errorf("ProposeAmendment(%q) = %q; want %q", tt.argv, got, tt.want)
		}
	}
}

func TestAppendRuleFindsOrAddsOneLine(t *testing.T) {
	const r = `prefix_rule(pattern=["make"], decision="allow")`
	tests := []struct {
		name, content string
		add           string
		line          int
		written       bool
	}{
		{"empty file", "", r + "\n", 1, true},
		{"after a final newline", "a\nb\n", r + "\n", 3, true},
		{"a missing final newline first", "a", "\n" + r + "\n", 2, true},
		{"already there, trailing blanks ignored", "a\n" + r + "  \n", "", 2, false},
	}
	for _, tt := range tests {
		add, line, written := AppendRule([]byte(tt.content), r)
		if string(add) != tt.add || line != tt.line || written != tt.written {
			t.Errorf("%s: %q line %d written %v; want %q line %d written %v", tt.name, add, line, written, tt.add, tt.line, tt.written)
		}
	}
}
