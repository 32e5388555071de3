package config

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseOverride(t *testing.T) {
	for _, tc := range []struct {
		in    string
		key   []string
		value any
	}{
		{"model=o3", []string{"model"}, "o3"},
		{`model="o3"`, []string{"model"}, "o3"},
		{"model = o3 ", []string{"model"}, "o3"},
		{"approval_timeout_sec=30", []string{"approval_timeout_sec"}, int64(30)},
		{"sandbox_workspace_write.network_access=true", []string{"sandbox_workspace_write", "network_access"}, true},
		{`sandbox_workspace_write.writable_roots=["/a","/b"]`, []string{"sandbox_workspace_write", "writable_roots"}, []any{"/a", "/b"}},
		{`mcp_servers."my.server".command=srv`, []string{"mcp_servers", "my.server", "command"}, "srv"},
		{"model=", []string{"model"}, ""},
		{"model=a=b", []string{"model"}, "a=b"},
		{"model=gpt-5 # comment", []string{"model"}, "gpt-5 # comment"},
		{"approval_timeout_sec=30 # seconds", []string{"approval_timeout_sec"}, int64(30)},
		{"model=1 x = 2", []string{"model"}, "1 x = 2"},
		{"model=1\nsandbox_mode='danger-full-access'", []string{"model"}, "1\nsandbox_mode='danger-full-access'"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			o, err := ParseOverride(tc.in)
			if err != nil {
				t.Fatalf("ParseOverride: %v", err)
			}
			if !reflect.DeepEqual(o.Key, tc.key) || !reflect.DeepEqual(o.Value, tc.value) {
				t.Errorf("got %q = %#v, want %q = %#v", o.Key, o.Value, tc.key, tc.value)
			}
		})
	}
}

func TestParseOverrideRejectsBadKeys(t *testing.T) {
	for _, in := range []string{
		"model",
		"=x",
		" =x",
		"a b=1",
		"a.=1",
		"a\nb=1",
		"a#b=1",
		"[a]=1",
	} {
		if o, err := ParseOverride(in); err == nil {
			t.Errorf("ParseOverride(%q) = %+v, want an error", in, o)
		} else if !strings.HasPrefix(err.Error(), "-c ") {
			t.Errorf("error %q does not name the -c argument", err)
		}
	}
}

// FuzzParseOverride checks that the -c parser never panics, that what it
// accepts is one non-empty key path, and that a value it could not read as
// TOML comes back as the text itself.
func FuzzParseOverride(f *testing.F) {
	for _, s := range []string{"model=o3", `a.b."c.d"=[1,2]`, "x={a=1}", "k='''x'''", "a=1\nb=2", "=", "a.b.c=true", `k="\u0000"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOverride(s)
		if err != nil {
			return
		}
		if len(o.Key) == 0 {
			t.Fatalf("ParseOverride(%q) accepted an empty key", s)
		}
		_, v, _ := strings.Cut(s, "=")
		if str, ok := o.Value.(string); ok && utf8.ValidString(s) {
			if str != strings.TrimSpace(v) && !strings.Contains(v, `"`) && !strings.Contains(v, `'`) {
				t.Fatalf("ParseOverride(%q) value %q is neither the text nor a TOML string", s, str)
			}
		}
		// An accepted override must build a tree Load can type-check
		// without panicking.
		_ = strictCheck(setPath(o.Key, o.Value), "-c "+s)
	})
}
