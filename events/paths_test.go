package events

import "testing"

func TestWithinComparesWholePathComponents(t *testing.T) {
	tests := []struct {
		name    string
		p, root string
		want    bool
	}{
		{"the root itself", "/w", "/w", true},
		{"a file below", "/w/a/b", "/w", true},
		{"a sibling sharing a prefix", "/wx", "/w", false},
		{"the parent", "/", "/w", false},
		{"everything is under /", "/etc/passwd", "/", true},
		{"a relative path is under nothing", "w/a", "/", false},
	}
	for _, tt := range tests {
		if got := Within(tt.p, tt.root); got != tt.want {
			t.Errorf("%s: Within(%q, %q) = %v; want %v", tt.name, tt.p, tt.root, got, tt.want)
		}
	}
	if !WithinAny("/t/x", []string{"/w", "/t"}) || WithinAny("/u", []string{"/w", "/t"}) || WithinAny("/w", nil) {
		t.Error("WithinAny does not agree with Within")
	}
}
