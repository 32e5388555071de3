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
		{"a shorter path", "/w", "/w/a", false},
		{"a long path below a long root", "/tmp/go-build1234567890/b001/x", "/tmp/go-build1234567890", true},
		{"a long sibling sharing a prefix", "/tmp/go-build1234567890x/b001", "/tmp/go-build1234567890", false},
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

// TestWithinDoesNotAllocate keeps Within free of allocations: the kept
// walk calls it for every unseen path against every directory an event
// names, so an allocation here is paid millions of times on a busy /tmp.
// The root is longer than 32 bytes: a shorter root+"/" is built on the
// stack and would not show an allocation.
func TestWithinDoesNotAllocate(t *testing.T) {
	p, root := "/tmp/session-workspace-1234567890/go-build1234567890/b001/importcfg", "/tmp/session-workspace-1234567890/go-build1234567890/b001"
	if n := testing.AllocsPerRun(100, func() { _ = Within(p, root) }); n != 0 {
		t.Errorf("Within allocates %v times per call; want 0", n)
	}
}
