package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/states/permissions"
	"github.com/docket-engine/docket/states/policy"
)

func codexPermissionsHome(t *testing.T, extra string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "codex-permissions.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return homeWith(t, extra+string(data))
}

func TestACodexConfigWithPermissionProfilesLoads(t *testing.T) {
	home := codexPermissionsHome(t, "")
	c := mustLoad(t, LoadOptions{Home: home, Cwd: "/work/proj", Env: envOf(map[string]string{"HOME": "/home/u", "TMPDIR": "/var/tmp/u"})})
	if c.PermissionsSelection.Profile != "project-edit" || !strings.Contains(c.PermissionsSelection.Why, "default_permissions") {
		t.Fatalf("selection = %+v", c.PermissionsSelection)
	}
	if c.SandboxMode != policy.WorkspaceWrite.String() {
		t.Errorf("SandboxMode = %q, want workspace-write", c.SandboxMode)
	}
	ww := c.SandboxWorkspaceWrite
	if !slices.Equal(ww.WritableRoots, []string{"/srv/shared"}) || ww.NetworkAccess || ww.ExcludeSlashTmp || ww.ExcludeTmpdirEnvVar {
		t.Errorf("workspace-write = %+v", ww)
	}
	if c.PermissionProfile == nil || c.PermissionProfile.GlobScanMaxDepth != 3 {
		t.Errorf("profile = %+v", c.PermissionProfile)
	}
	if src := c.Sources["sandbox_mode"]; src.Layer != LayerFile {
		t.Errorf("sandbox_mode source = %+v, want the file that chose the profile", src)
	}
}

func TestBuiltinProfilesMapToTheirModes(t *testing.T) {
	cases := map[string]policy.SandboxMode{
		":read-only": policy.ReadOnly, ":workspace": policy.WorkspaceWrite, ":danger-full-access": policy.DangerFullAccess,
	}
	for name, want := range cases {
		c := mustLoad(t, LoadOptions{Home: homeWith(t, ""), Cwd: "/work/proj", Flags: Flags{Permissions: ptr(name)}})
		if c.SandboxMode != want.String() || c.PermissionsSelection.Profile != name {
			t.Errorf("--permissions %s: mode %q selection %+v", name, c.SandboxMode, c.PermissionsSelection)
		}
	}
}

func TestLegacySandboxModeWinsOverDefaultPermissionsAsInCodex(t *testing.T) {
	home := codexPermissionsHome(t, "sandbox_mode = \"read-only\"\n")
	c := mustLoad(t, LoadOptions{Home: home, Cwd: "/work/proj"})
	if c.PermissionsSelection.Profile != "" || c.PermissionProfile != nil {
		t.Fatalf("a file's sandbox_mode must win: %+v", c.PermissionsSelection)
	}
	if !slices.ContainsFunc(c.Warnings, func(w string) bool {
		return strings.Contains(w, "sandbox_mode") && strings.Contains(w, "wins over default_permissions")
	}) {
		t.Errorf("no warning naming the winner: %q", c.Warnings)
	}
	// --sandbox wins as well.
	c = mustLoad(t, LoadOptions{Home: codexPermissionsHome(t, ""), Cwd: "/work/proj", Flags: Flags{SandboxMode: ptr("read-only")}})
	if c.PermissionsSelection.Profile != "" || c.SandboxMode != "read-only" {
		t.Fatalf("--sandbox must win: %+v %q", c.PermissionsSelection, c.SandboxMode)
	}
	// --permissions names a profile explicitly: it wins over the file's mode.
	c = mustLoad(t, LoadOptions{Home: home, Cwd: "/work/proj", Flags: Flags{Permissions: ptr(":read-only")}})
	if c.PermissionsSelection.Profile != ":read-only" || !strings.Contains(c.PermissionsSelection.Why, "over sandbox_mode") {
		t.Fatalf("--permissions: %+v", c.PermissionsSelection)
	}
	// Both flags: an error naming them.
	_, err := Load(LoadOptions{Home: home, Flags: Flags{Permissions: ptr(":read-only"), SandboxMode: ptr("read-only")}})
	if err == nil || !strings.Contains(err.Error(), "--permissions and --sandbox") {
		t.Fatalf("both flags: err = %v", err)
	}
}

func TestABadProfileKeyIsLocatedInTheFile(t *testing.T) {
	home := homeWith(t, "default_permissions = \"p\"\n\n[permissions.p.filesystem]\n\":root\" = \"read\"\n\"etc\" = \"read\"\n")
	_, err := Load(LoadOptions{Home: home, Cwd: "/work/proj"})
	var e *Error
	if !errors.As(err, &e) || e.Line != 5 || e.Key != "permissions.p.filesystem.etc" || !strings.Contains(e.Source, FileName) {
		t.Fatalf("err = %v (%+v), want line 5 of the file, key permissions.p.filesystem.etc", err, e)
	}
	var pe *permissions.Error
	if !errors.As(err, &pe) {
		t.Errorf("the profile error is not wrapped: %v", err)
	}
	_, err = Load(LoadOptions{Home: homeWith(t, "default_permissions = \"nope\"\n")})
	if !errors.As(err, &e) || e.Line != 1 || !strings.Contains(e.Msg, `"nope" is not defined`) {
		t.Fatalf("unknown profile: err = %v", err)
	}
}

func TestANetworkProfileLoadsAndGoesThroughTheProxy(t *testing.T) {
	c := mustLoad(t, LoadOptions{Home: codexPermissionsHome(t, ""), Cwd: "/work/proj", Flags: Flags{Permissions: ptr("net")}})
	if !c.Egress || c.SandboxMode != "read-only" || c.SandboxWorkspaceWrite.NetworkAccess {
		t.Fatalf("egress %v mode %q network %v", c.Egress, c.SandboxMode, c.SandboxWorkspaceWrite.NetworkAccess)
	}
	if v := c.PermissionProfile.Network.Decide("files.pythonhosted.org"); v.Action != "allow" {
		t.Fatalf("the profile's rules: %+v", v)
	}
}

func TestNoneRulesLoadWhereTheCallerHidesThem(t *testing.T) {
	c := mustLoad(t, LoadOptions{Home: codexPermissionsHome(t, ""), Cwd: "/work/proj", Flags: Flags{Permissions: ptr("secrets")}})
	if c.SandboxMode != "workspace-write" || len(c.PermissionProfile.HiddenPatterns()) != 1 {
		t.Fatalf("mode %q hidden %v", c.SandboxMode, c.PermissionProfile.HiddenPatterns())
	}
}

// A unix socket a profile allows is not honoured on Linux (it stays
// covered): the configuration says so rather than pretend; a none entry
// needs no word.
func TestAUnixSocketAllowIsSaidToBeNotHonoured(t *testing.T) {
	home := homeWith(t, "[permissions.sock.filesystem]\n\":root\" = \"read\"\n[permissions.sock.network.unix_sockets]\n\"/run/agent.sock\" = \"allow\"\n\"/run/docker.sock\" = \"none\"\n")
	c := mustLoad(t, LoadOptions{Home: home, Cwd: "/work/proj", Flags: Flags{Permissions: ptr("sock")}})
	var said []string
	for _, w := range c.Warnings {
		if strings.Contains(w, "unix_sockets") {
			said = append(said, w)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "/run/agent.sock") || !strings.Contains(said[0], "not honoured") {
		t.Errorf("warnings about unix sockets: %q; want one naming /run/agent.sock", said)
	}
}

// TestAReadOnlyPathInsideAWritableOneIsRefused: the sandbox cannot keep a
// path read-only inside a writable root it was not told of, so such a
// profile is refused; "inside" is by whole path components, so a sibling
// that shares a prefix (/srv/database beside /srv/data) loads.
func TestAReadOnlyPathInsideAWritableOneIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, read string
		refused    bool
	}{
		{"below the writable root", `"/srv/data/keep" = "read"`, true},
		{"below the project", `":project_roots" = { "." = "write", "docs" = "read" }`, true},
		{"a sibling sharing a prefix", `"/srv/database" = "read"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := `":project_roots" = { "." = "write" }` + "\n"
			if strings.HasPrefix(tc.read, `":project_roots"`) {
				project = ""
			}
			home := homeWith(t, "default_permissions = \"p\"\n\n[permissions.p.filesystem]\n\":root\" = \"read\"\n"+project+"\"/srv/data\" = \"write\"\n"+tc.read+"\n")
			_, err := Load(LoadOptions{Home: home, Cwd: "/work/proj"})
			if refused := err != nil && strings.Contains(err.Error(), "a read-only path inside a writable one"); refused != tc.refused {
				t.Fatalf("%s: err = %v; want refused %t", tc.read, err, tc.refused)
			}
			if !tc.refused && err != nil {
				t.Fatalf("%s: %v", tc.read, err)
			}
		})
	}
}
