package config

import (
	"errors"
	"strings"
	"testing"
)

// TestAGrantInsideAHiddenPathIsRefused: the nearer rule wins in the
// profile, but the sandbox hides a none path whole, so a grant below one
// would be hidden too; such a profile is refused naming the grant, and a
// none below a grant (what hiding is for) loads.
func TestAGrantInsideAHiddenPathIsRefused(t *testing.T) {
	cases := []struct {
		name, filesystem, key string
	}{
		{"read inside a literal none", `"~/.ssh" = "none"` + "\n" + `"~/.ssh/config" = "read"`, `permissions.p.filesystem."~/.ssh/config"`},
		{"the same path granted and hidden: the strictest wins, as in the rules", `"/srv/x" = "none"` + "\n" + `"/srv/x/." = "read"`, ""},
		{"a literal a none glob names", `"/srv/*" = "none"` + "\n" + `"/srv/data" = "read"`, `permissions.p.filesystem."/srv/data"`},
		{"write matched by a none glob", `":project_roots" = { "." = "write", "data/*" = "none", "data/keep" = "write" }`, `permissions.p.filesystem.":project_roots"."data/keep"`},
		{"below a path a none glob matches", `"/srv/**/secret" = "none"` + "\n" + `"/srv/a/secret/pub" = "read"`, `permissions.p.filesystem."/srv/a/secret/pub"`},
		{"none below a grant loads", `":project_roots" = { "." = "write", "**/.env" = "none" }` + "\n" + `"~/.ssh" = "none"`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := homeWith(t, "[permissions.p.filesystem]\n\":root\" = \"read\"\n"+tc.filesystem+"\n")
			_, err := Load(LoadOptions{Home: home, Cwd: "/work/proj", Env: envOf(map[string]string{"HOME": "/home/u"}), Flags: Flags{Permissions: ptr("p")}})
			if tc.key == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Key != tc.key || !strings.Contains(e.Msg, "inside a hidden one") {
				t.Fatalf("err = %v (%+v), want the grant %s named", err, e, tc.key)
			}
		})
	}
}
