package mcp

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

func TestQualify(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		name string
		refs []ToolRef
		want map[ToolRef]string
	}{
		{
			name: "plain names pass through",
			refs: []ToolRef{{"fs", "read_file"}, {"fs", "write_file"}},
			want: map[ToolRef]string{{"fs", "read_file"}: "mcp__fs__read_file", {"fs", "write_file"}: "mcp__fs__write_file"},
		},
		{
			name: "odd characters become underscores, one per character",
			refs: []ToolRef{{"my-server", "get.sum/v2 ü"}},
			want: map[ToolRef]string{{"my-server", "get.sum/v2 ü"}: "mcp__my_server__get_sum_v2__"},
		},
		{
			name: "sanitized collision hashes every member",
			refs: []ToolRef{{"s", "get-sum"}, {"s", "get_sum"}, {"s", "other"}},
			want: map[ToolRef]string{
				{"s", "get-sum"}: "mcp__s__get_sum_" + hashOf("s", "get-sum")[:8],
				{"s", "get_sum"}: "mcp__s__get_sum_" + hashOf("s", "get_sum")[:8],
				{"s", "other"}:   "mcp__s__other",
			},
		},
		{
			name: "separator in names collides across servers",
			refs: []ToolRef{{"a__b", "c"}, {"a", "b__c"}},
			want: map[ToolRef]string{
				{"a__b", "c"}: "mcp__a__b__c_" + hashOf("a__b", "c")[:8],
				{"a", "b__c"}: "mcp__a__b__c_" + hashOf("a", "b__c")[:8],
			},
		},
		{
			name: "overflow is cut to 64 bytes with a hash",
			refs: []ToolRef{{"srv", long}},
			want: map[ToolRef]string{{"srv", long}: ("mcp__srv__" + long)[:55] + "_" + hashOf("srv", long)[:8]},
		},
		{
			name: "exactly 64 bytes is kept",
			refs: []ToolRef{{"srv", strings.Repeat("y", 64-len("mcp__srv__"))}},
			want: map[ToolRef]string{{"srv", strings.Repeat("y", 54)}: "mcp__srv__" + strings.Repeat("y", 54)},
		},
		{
			name: "duplicates share one name",
			refs: []ToolRef{{"s", "t"}, {"s", "t"}},
			want: map[ToolRef]string{{"s", "t"}: "mcp__s__t"},
		},
		{
			name: "a tool named like another's hashed name forces longer hashes",
			refs: []ToolRef{{"s", "a-b"}, {"s", "a_b"}, {"s", "a_b_" + hashOf("s", "a-b")[:8]}},
			want: map[ToolRef]string{
				{"s", "a-b"}:                           "mcp__s__a_b_" + hashOf("s", "a-b")[:12],
				{"s", "a_b"}:                           "mcp__s__a_b_" + hashOf("s", "a_b")[:8],
				{"s", "a_b_" + hashOf("s", "a-b")[:8]}: "mcp__s__a_b_" + hashOf("s", "a-b")[:8] + "_" + hashOf("s", "a_b_"+hashOf("s", "a-b")[:8])[:8],
			},
		},
		{
			name: "empty input",
			refs: nil,
			want: map[ToolRef]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Qualify(tt.refs)
			if err != nil {
				t.Fatalf("Qualify: %v", err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("Qualify(%q)\n got %q\nwant %q", tt.refs, got, tt.want)
			}
			checkNames(t, tt.refs, got)
		})
	}
}

// hashOf is the hex SHA-1 the qualifier uses for a ref.
func hashOf(server, tool string) string {
	n := hashedName(ToolRef{server, tool}, 40)
	return n[len(n)-40:]
}

// checkNames asserts the invariants every qualification must hold.
func checkNames(t testing.TB, refs []ToolRef, got map[ToolRef]string) {
	t.Helper()
	owner := map[string]ToolRef{}
	for _, r := range refs {
		n, ok := got[r]
		if !ok {
			t.Fatalf("no name for %q", r)
		}
		if !validName.MatchString(n) || !ValidQualifiedName(n) {
			t.Errorf("name %q for %q is not a valid qualified name", n, r)
		}
		if o, dup := owner[n]; dup && o != r {
			t.Errorf("name %q given to both %q and %q", n, o, r)
		}
		owner[n] = r
	}
}

func TestQualifyIsOrderIndependent(t *testing.T) {
	refs := []ToolRef{{"s", "a-b"}, {"s", "a_b"}, {"t", strings.Repeat("z", 80)}, {"s", "c"}, {"a__b", "c"}, {"a", "b__c"}}
	want, err := Qualify(refs)
	if err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(refs)
	slices.Reverse(rev)
	got, err := Qualify(rev)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("reversed input gave %q, want %q", got, want)
	}
}

func FuzzQualify(f *testing.F) {
	f.Add("fs", "read_file", "fs", "read-file", "x", "y")
	f.Add("a__b", "c", "a", "b__c", "", "")
	f.Add("srv", strings.Repeat("é", 40), "srv", strings.Repeat("è", 40), "s\x00", "\xff")
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2, s3, t3 string) {
		refs := []ToolRef{{s1, t1}, {s2, t2}, {s3, t3}}
		got, err := Qualify(refs)
		if err != nil {
			t.Fatalf("Qualify(%q): %v", refs, err)
		}
		checkNames(t, refs, got)
		rev := []ToolRef{refs[2], refs[1], refs[0]}
		again, err := Qualify(rev)
		if err != nil {
			t.Fatalf("Qualify(%q): %v", rev, err)
		}
		if !maps.Equal(got, again) {
			t.Fatalf("order changed names: %q vs %q", got, again)
		}
	})
}

// ValidQualifiedName reports whether s is a name Qualify could produce (a
// test oracle): the
// mcp__ prefix, only [A-Za-z0-9_], at most MaxNameLen bytes.
func ValidQualifiedName(s string) bool {
	if !strings.HasPrefix(s, namePrefix) || len(s) > MaxNameLen || !utf8.ValidString(s) {
		return false
	}
	return sanitize(s) == s
}
