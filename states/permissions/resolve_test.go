package permissions

import (
	"errors"
	"strings"
	"testing"
)

var testEnv = Env{ProjectRoots: []string{"/work/proj"}, Tmpdirs: []string{"/tmp"}, Home: "/home/u"}

func mustResolve(t *testing.T, name string, profiles map[string]Profile) *Resolved {
	t.Helper()
	r, err := Resolve(name, profiles, testEnv)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", name, err)
	}
	return r
}

func TestBuiltinsGrantWhatCodexDocuments(t *testing.T) {
	cases := []struct {
		profile string
		path    string
		want    Access
	}{
		{BuiltinReadOnly, "/etc/passwd", Read},
		{BuiltinReadOnly, "/work/proj/main.go", Read},
		{BuiltinReadOnly, "/tmp/x", Read},
		{BuiltinWorkspace, "/work/proj/main.go", Write},
		{BuiltinWorkspace, "/work/proj", Write},
		{BuiltinWorkspace, "/work/projects/x", Read},
		{BuiltinWorkspace, "/tmp/x", Write},
		{BuiltinWorkspace, "/home/u/.ssh/id_ed25519", Read},
		{BuiltinFullAccess, "/etc/passwd", Write},
	}
	for _, tc := range cases {
		r := mustResolve(t, tc.profile, nil)
		if got := r.Access(tc.path).Access; got != tc.want {
			t.Errorf("%s: Access(%s) = %s, want %s", tc.profile, tc.path, got, tc.want)
		}
	}
	if n := mustResolve(t, BuiltinWorkspace, nil).Network; n.Enabled {
		t.Errorf(":workspace network = %+v, want off", n)
	}
	if n := mustResolve(t, BuiltinFullAccess, nil).Network; !n.Enabled || !n.AllowAll {
		t.Errorf(":danger-full-access network = %+v, want everything", n)
	}
}

func TestOverlappingFilesystemRules(t *testing.T) {
	profiles := map[string]Profile{"dev": {Filesystem: map[string]any{
		":root":          "read",
		"~/.ssh":         "none",
		"~/.ssh/config":  "read",
		"/etc/**/shadow": "none",
		"/etc/ssl":       "read",
		":project_roots": map[string]any{".": "write", "**/.env": "none", "keep/.env": "read", "docs": "read", "docs/**": "write"},
		"/srv/data":      "write",
		"/srv/*":         "none",
		"/opt/x":         "write",
		"/opt/./x":       "none",
	}}}
	r := mustResolve(t, "dev", profiles)
	cases := []struct {
		name, path string
		want       Access
	}{
		{"a nearer ancestor wins over :root", "/home/u/.ssh/id_rsa", None},
		{"the path itself is nearer still", "/home/u/.ssh/config", Read},
		{"a deeper glob beats a shallower literal", "/work/proj/sub/.env", None},
		{"a glob at the root of the project", "/work/proj/.env", None},
		{"below what a glob names is covered too", "/work/proj/.env/inner", None},
		{"a literal beats a glob at the same depth", "/work/proj/keep/.env", Read},
		{"a glob covering deeper wins over the literal above it", "/work/proj/docs/a.md", Write},
		{"the literal directory itself", "/work/proj/docs", Read},
		{"a literal beats a glob naming the same path", "/srv/data/file", Write},
		{"the glob elsewhere", "/srv/other", None},
		{"the strictest wins between equals", "/opt/x/y", None},
		{"** matches zero directories", "/etc/shadow", None},
		{"** matches several", "/etc/a/b/shadow", None},
		{"no rule but :root", "/usr/bin/env", Read},
		{"cleaned before matching", "/work/proj/sub/../.env", None},
		{"a relative path is hidden", "work/proj", None},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := r.Access(tc.path)
			if v.Access != tc.want {
				key := ""
				if v.Rule != nil {
					key = v.Rule.Key
				}
				t.Errorf("Access(%s) = %s (rule %s), want %s", tc.path, v.Access, key, tc.want)
			}
		})
	}
}

func TestAPathNoRuleCoversIsHidden(t *testing.T) {
	r := mustResolve(t, "p", map[string]Profile{"p": {Filesystem: map[string]any{":project_roots": "write"}}})
	if v := r.Access("/etc/passwd"); v.Access != None || v.Rule != nil {
		t.Fatalf("Access(/etc/passwd) = %+v, want hidden with no rule", v)
	}
	if v := r.Access("/work/proj/a"); v.Access != Write {
		t.Fatalf(":project_roots = \"write\" (string form): Access = %s", v.Access)
	}
}

func TestWorkspaceRootsAndGlobDepth(t *testing.T) {
	r := mustResolve(t, "p", map[string]Profile{"p": {
		Filesystem:     map[string]any{":project_roots": map[string]any{".": "write"}, "glob_scan_max_depth": int64(3)},
		WorkspaceRoots: map[string]bool{"~/other": true, "/off": false},
	}})
	if got := strings.Join(r.WorkspaceRoots, ","); got != "/work/proj,/home/u/other" {
		t.Errorf("WorkspaceRoots = %s", got)
	}
	if r.Access("/home/u/other/f").Access != Write || r.Access("/off/f").Access != None {
		t.Errorf("workspace roots not applied: %v %v", r.Access("/home/u/other/f"), r.Access("/off/f"))
	}
	if r.GlobScanMaxDepth != 3 {
		t.Errorf("GlobScanMaxDepth = %d", r.GlobScanMaxDepth)
	}
}

func TestBadProfilesNameTheKey(t *testing.T) {
	cases := []struct {
		name     string
		profile  Profile
		key, msg string
	}{
		{"relative path", Profile{Filesystem: map[string]any{"etc": "read"}}, `permissions.p.filesystem.etc`, "absolute"},
		{"dotdot", Profile{Filesystem: map[string]any{"/a/../etc": "read"}}, `"/a/../etc"`, ".."},
		{"bad access", Profile{Filesystem: map[string]any{":root": "rw"}}, `":root"`, `got "rw"`},
		{"access of wrong type", Profile{Filesystem: map[string]any{":root": int64(1)}}, `":root"`, "got int64"},
		{"unknown special", Profile{Filesystem: map[string]any{":home": "read"}}, `":home"`, "unknown special"},
		{"escape from project root", Profile{Filesystem: map[string]any{":project_roots": map[string]any{"../x": "write"}}}, `":project_roots"."../x"`, "relative"},
		{"absolute under project roots", Profile{Filesystem: map[string]any{":project_roots": map[string]any{"/x": "write"}}}, `"/x"`, "relative"},
		{"bad glob", Profile{Filesystem: map[string]any{"/a/[x": "none"}}, `"/a/[x"`, "bad glob"},
		{"glued double star", Profile{Filesystem: map[string]any{"/a/**x": "none"}}, `"/a/**x"`, "whole path component"},
		{"depth too large", Profile{Filesystem: map[string]any{"glob_scan_max_depth": int64(1000)}}, "glob_scan_max_depth", "1 to 64"},
		{"depth zero", Profile{Filesystem: map[string]any{"glob_scan_max_depth": int64(0)}}, "glob_scan_max_depth", "1 to 64"},
		{"glob workspace root", Profile{WorkspaceRoots: map[string]bool{"/a/*": true}}, `workspace_roots."/a/*"`, "glob"},
		{"domain with a port", Profile{Network: &NetworkTable{Domains: map[string]string{"example.com:443": "allow"}}}, `"example.com:443"`, "port"},
		{"bare wildcard", Profile{Network: &NetworkTable{Domains: map[string]string{"*": "allow"}}}, `domains."*"`, "wildcard"},
		{"inner wildcard", Profile{Network: &NetworkTable{Domains: map[string]string{"a.*.com": "allow"}}}, `"a.*.com"`, "wildcard"},
		{"wildcard TLD", Profile{Network: &NetworkTable{Domains: map[string]string{"*.com": "allow"}}}, `"*.com"`, "top-level"},
		{"IP rule", Profile{Network: &NetworkTable{Domains: map[string]string{"10.0.0.1": "allow"}}}, `"10.0.0.1"`, "IP address"},
		{"IPv6 rule", Profile{Network: &NetworkTable{Domains: map[string]string{"[::1]": "allow"}}}, `"[::1]"`, "IP address"},
		{"URL rule", Profile{Network: &NetworkTable{Domains: map[string]string{"https://x.com": "allow"}}}, `"https://x.com"`, "not a URL"},
		{"bad verdict", Profile{Network: &NetworkTable{Domains: map[string]string{"x.com": "ask"}}}, `domains."x.com"`, `got "ask"`},
		{"bad mode", Profile{Network: &NetworkTable{Mode: "partial"}}, "network.mode", "partial"},
		{"bad socket", Profile{Network: &NetworkTable{UnixSockets: map[string]string{"/run/x.sock": "read"}}}, `unix_sockets."/run/x.sock"`, `got "read"`},
		{"relative socket", Profile{Network: &NetworkTable{UnixSockets: map[string]string{"x.sock": "allow"}}}, `unix_sockets."x.sock"`, "absolute"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve("p", map[string]Profile{"p": tc.profile}, testEnv)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if !strings.Contains(e.Key, tc.key) || !strings.Contains(e.Msg, tc.msg) {
				t.Fatalf("err = %q, want key containing %q and message containing %q", err, tc.key, tc.msg)
			}
		})
	}
}

func TestProfileNamesAndUnknownProfiles(t *testing.T) {
	_, err := Resolve(":mine", map[string]Profile{":mine": {}}, testEnv)
	if err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("a colon name: err = %v", err)
	}
	_, err = Resolve("nope", map[string]Profile{"dev": {}}, testEnv)
	if err == nil || !strings.Contains(err.Error(), `"nope" is not defined`) || !strings.Contains(err.Error(), ":danger-full-access, dev") {
		t.Errorf("unknown profile: err = %v", err)
	}
}

func TestIgnoredCodexProxyKeysWarn(t *testing.T) {
	on := true
	r := mustResolve(t, "p", map[string]Profile{"p": {Network: &NetworkTable{Enabled: &on, ProxyURL: "http://127.0.0.1:3128", MITM: &on}}})
	if len(r.Warnings) != 2 || !strings.Contains(r.Warnings[0], "mitm") || !strings.Contains(r.Warnings[1], "proxy_url") {
		t.Fatalf("Warnings = %q", r.Warnings)
	}
}

func TestGlobHelpers(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"/w/**/.env", "/w/.env", true},
		{"/w/**/.env", "/w/a/b/.env", true},
		{"/w/**/.env", "/w/a/b/.env/x", false},
		{"/w/*.key", "/w/a.key", true},
		{"/w/*.key", "/w/d/a.key", false},
	} {
		if got := MatchGlob(tc.pattern, tc.path); got != tc.want {
			t.Errorf("MatchGlob(%s, %s) = %v", tc.pattern, tc.path, got)
		}
	}
	if GlobRoot("/w/src/**/.env") != "/w/src" || GlobRoot("/*/x") != "/" {
		t.Errorf("GlobRoot: %s %s", GlobRoot("/w/src/**/.env"), GlobRoot("/*/x"))
	}
}
