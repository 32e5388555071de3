package main

import (
	"strings"
	"testing"
)

func TestTreeOrderPutsChildrenUnderTheirParent(t *testing.T) {
	t.Parallel()
	row := func(id, parent string) sessionSummary { return sessionSummary{ID: id, Parent: parent} }
	for _, tc := range []struct {
		name string
		rows []sessionSummary
		want string // id@depth, in order
	}{
		{"no sessions", nil, ""},
		{"a child listed before its parent moves under it", []sessionSummary{row("c", "p"), row("q", ""), row("p", "")}, "q@0 p@0 c@1"},
		{"grandchildren nest", []sessionSummary{row("g", "c"), row("c", "p"), row("p", "")}, "p@0 c@1 g@2"},
		{"siblings keep the list's order", []sessionSummary{row("p", ""), row("b", "p"), row("a", "p")}, "p@0 b@1 a@1"},
		{"a child whose parent is not listed stays a root", []sessionSummary{row("c", "gone")}, "c@0"},
		{"a cycle of parent links lists each once", []sessionSummary{row("x", "y"), row("y", "x")}, "x@0 y@1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, depth := treeOrder(tc.rows)
			var got []string
			for i, r := range rows {
				got = append(got, r.ID+"@"+string(rune('0'+depth[i])))
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tc.want)
			}
			if rows == nil {
				t.Error("nil rows: --json would print null")
			}
		})
	}
}
