package proctree

import (
	"os"
	"strings"
	"testing"
)

// TestLimitsLeafIsOneLeafRemovedWhole: a sandboxed call's limits leaf is
// the same Leaf a Tree kills; it names its layer and the files a process
// joins it through, and Remove deletes every directory it made (one per
// controller on v1).
func TestLimitsLeafIsOneLeafRemovedWhole(t *testing.T) {
	var none *Leaf
	if none.Remove() != nil || none.Layer() != "" || none.Procs() != nil || none.OOMKills() != 0 {
		t.Fatal("a nil leaf (no limits, or none can be made) must read as empty")
	}
	if NewLimits(0, 0) != nil {
		t.Fatal("a leaf was made for no limit")
	}
	l := NewLimits(64<<20, 64)
	if l == nil {
		t.Skip("no cgroup leaf can be made here (not root, or no delegated cgroup)")
	}
	if !strings.HasPrefix(l.Layer(), "cgroup-v1:") && !strings.HasPrefix(l.Layer(), "cgroup-v2:") {
		t.Errorf("layer %q", l.Layer())
	}
	if len(l.Procs()) == 0 || len(l.dirs) == 0 {
		t.Fatalf("procs %v, dirs %v: want a join file and a directory", l.Procs(), l.dirs)
	}
	for _, p := range l.Procs() {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("join file: %v", err)
		}
	}
	if err := l.Remove(); err != nil {
		t.Fatal(err)
	}
	for _, d := range l.dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s left after Remove (%v)", d, err)
		}
	}
}
