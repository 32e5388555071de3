package approval

import (
	"reflect"
	"sync"
	"testing"
)

func TestKeysAreCanonicalJSON(t *testing.T) {
	tests := []struct{ got, want string }{
		{ShellKey([]string{"git", "push", "<&>"}, "/w", ""), `{"command":["git","push","<&>"],"cwd":"/w","sandbox_permissions":"use_default","tool":"shell"}`},
		{ShellKey(nil, "/w", "require_escalated"), `{"command":[],"cwd":"/w","sandbox_permissions":"require_escalated","tool":"shell"}`},
		{MCPKey("fs", "read"), `{"server":"fs","tool":"read"}`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("key = %s; want %s", tt.got, tt.want)
		}
	}
	if ExecKey([]string{"ls"}, "/w", "") != ShellKey([]string{"ls"}, "/w", "use_default") {
		t.Error("ExecKey and ShellKey disagree")
	}
	if PatchKey("/w/./a.txt") != `{"path":"/w/a.txt","tool":"apply_patch"}` {
		t.Errorf("PatchKey = %s", PatchKey("/w/./a.txt"))
	}
	got := PatchKeys([]string{"/w/b.txt", "/w/./a.txt", "/w/b.txt"})
	want := []string{`{"path":"/w/a.txt","tool":"apply_patch"}`, `{"path":"/w/b.txt","tool":"apply_patch"}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PatchKeys = %q; want %q", got, want)
	}
}

func TestShellKeysDistinguishEveryField(t *testing.T) {
	base := ShellKey([]string{"ls"}, "/w", "use_default")
	for _, other := range []string{
		ShellKey([]string{"ls", "-l"}, "/w", "use_default"),
		ShellKey([]string{"/bin/ls"}, "/w", "use_default"),
		ShellKey([]string{"ls"}, "/x", "use_default"),
		ShellKey([]string{"ls"}, "/w", "require_escalated"),
		ShellKey([]string{"bash", "-lc", "ls"}, "/w", "use_default"),
	} {
		if other == base {
			t.Errorf("%s collides with %s", other, base)
		}
	}
	if ShellKey([]string{"ls"}, "/w", "") != base {
		t.Error("empty sandbox_permissions must mean use_default")
	}
}

func TestApprovalCacheNeedsEveryKeyAndGrantsEachSeparately(t *testing.T) {
	a, b, c := PatchKeys([]string{"/w/a"})[0], PatchKeys([]string{"/w/b"})[0], PatchKeys([]string{"/w/c"})[0]
	s := &Store{}
	steps := []struct {
		name    string
		grant   []string
		ask     []string
		granted bool
	}{
		{"empty store grants nothing", nil, []string{a}, false},
		{"no keys is never granted", nil, nil, false},
		{"granting a and b", []string{a, b}, []string{a, b}, true},
		{"a subset of a grant is granted", nil, []string{b}, true},
		{"one new key means asking again", nil, []string{a, c}, false},
		{"granting c completes it", []string{c}, []string{a, b, c}, true},
	}
	for _, st := range steps {
		if st.grant != nil {
			s.Grant(st.grant...)
		}
		if got := s.AllGranted(st.ask); got != st.granted {
			t.Errorf("%s: AllGranted = %v; want %v", st.name, got, st.granted)
		}
	}
}

func TestACompoundScriptGrantDoesNotCoverItsParts(t *testing.T) {
	s := NewStore(ShellKey([]string{"bash", "-lc", "make && make install"}, "/w", ""))
	for _, argv := range [][]string{{"bash", "-lc", "make"}, {"make", "install"}, {"bash", "-lc", "make install"}} {
		if s.AllGranted([]string{ShellKey(argv, "/w", "")}) {
			t.Errorf("grant of the whole script covers %q", argv)
		}
	}
}

func TestTheStoreRebuildsFromJournaledGrants(t *testing.T) {
	live := &Store{}
	first := live.Grant(MCPKey("s", "t"), ShellKey([]string{"ls"}, "/", ""))
	again := live.Grant(MCPKey("s", "t"))
	if len(first) != 2 || len(again) != 0 {
		t.Fatalf("Grant returned %q then %q; want 2 new keys then none", first, again)
	}
	rebuilt := NewStore(live.Keys()...)
	if !reflect.DeepEqual(rebuilt.Keys(), live.Keys()) || rebuilt.Len() != 2 {
		t.Fatalf("rebuilt %q; want %q", rebuilt.Keys(), live.Keys())
	}
}

func TestTheStoreIsSafeForParallelCalls(t *testing.T) {
	s := &Store{}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			k := MCPKey("s", string(rune('a'+i)))
			s.Grant(k)
			if !s.AllGranted([]string{k}) {
				t.Error("a key just granted is not granted")
			}
		}(i)
	}
	wg.Wait()
	if s.Len() != 8 {
		t.Fatalf("Len = %d; want 8", s.Len())
	}
}
