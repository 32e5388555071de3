package safetext

import "testing"

func TestExpandTabsAlignsToTabStops(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"no tab", "plain", "plain"},
		{"leading tab", "\treturn nil", "    return nil"},
		{"two levels", "\t\tx := 1", "        x := 1"},
		{"mid-line tab aligns", "ab\tc", "ab  c"},
		{"each line restarts", "a\tb\n\tc", "a   b\n    c"},
		{"runes count as one column", "é\tx", "é   x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExpandTabs(tc.in, 4); got != tc.want {
				t.Errorf("ExpandTabs(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := Line(ExpandTabs(tc.in, 0)); got != Line(tc.want) {
				t.Errorf("Line(ExpandTabs(%q)) = %q still escapes something", tc.in, got)
			}
		})
	}
}
