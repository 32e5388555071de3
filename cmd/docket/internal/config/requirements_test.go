package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/states/permissions"
)

func requirementsFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "requirements.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestManagedRequirementsCannotBeWidened(t *testing.T) {
	req := requirementsFile(t, `allowed_approval_policies = ["untrusted", "on-request"]
allowed_sandbox_modes = ["read-only", "workspace-write"]
`)
	cases := []struct {
		name string
		file string
		opts LoadOptions
		key  string
		msg  string
	}{
		{"the config file", "approval_policy = \"never\"\n", LoadOptions{}, "allowed_approval_policies", "approval policy never ("},
		{"a flag", "", LoadOptions{Flags: Flags{SandboxMode: ptr("danger-full-access")}}, "allowed_sandbox_modes", "(--sandbox)"},
		{"a -c override", "", LoadOptions{Overrides: []string{`approval_policy="on-failure"`}}, "allowed_approval_policies", `-c approval_policy="on-failure"`},
		{"a permission profile", "", LoadOptions{Flags: Flags{Permissions: ptr(":danger-full-access")}}, "allowed_sandbox_modes", "danger-full-access"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Home, opts.Cwd, opts.RequirementsFiles = homeWith(t, tc.file), "/work/proj", []string{req}
			_, err := Load(opts)
			var e *Error
			if !errors.As(err, &e) || e.Source != req || e.Key != tc.key || !strings.Contains(e.Msg, tc.msg) {
				t.Fatalf("err = %v, want %s: %s naming %q", err, req, tc.key, tc.msg)
			}
		})
	}
	// What the requirements allow loads, and they are kept.
	c := mustLoad(t, LoadOptions{Home: homeWith(t, ""), Cwd: "/work/proj", RequirementsFiles: []string{req}})
	if len(c.Requirements) != 1 || c.Requirements[0].File != req {
		t.Fatalf("requirements = %+v", c.Requirements)
	}
}

func TestAllowedPermissionProfilesRequireAProfile(t *testing.T) {
	req := requirementsFile(t, `allowed_permission_profiles = [":read-only"]`+"\n")
	_, err := Load(LoadOptions{Home: homeWith(t, ""), Cwd: "/work/proj", RequirementsFiles: []string{req}})
	if err == nil || !strings.Contains(err.Error(), "only permission profiles are allowed") {
		t.Fatalf("legacy keys under allowed_permission_profiles: %v", err)
	}
	_, err = Load(LoadOptions{Home: homeWith(t, ""), Cwd: "/work/proj", RequirementsFiles: []string{req}, Flags: Flags{Permissions: ptr(":workspace")}})
	if err == nil || !strings.Contains(err.Error(), "permission profile :workspace (--permissions) is not allowed") {
		t.Fatalf("a profile not listed: %v", err)
	}
	mustLoad(t, LoadOptions{Home: homeWith(t, ""), Cwd: "/work/proj", RequirementsFiles: []string{req}, Flags: Flags{Permissions: ptr(":read-only")}})
}

func TestARequirementsFileThatCannotBeReadFailsClosed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "requirements.toml")
	if err := os.Mkdir(dir, 0o755); err != nil { // a directory: exists, cannot be read as a file (even by root)
		t.Fatal(err)
	}
	cases := []struct {
		name, path, msg string
		line            int
	}{
		{"unreadable", dir, "cannot read the managed requirements file", 0},
		{"not TOML", requirementsFile(t, "allowed_sandbox_modes = [\n"), "", 0},
		{"a requirement Docket does not enforce", requirementsFile(t, "allowed_sandbox_modes = [\"read-only\"]\n[features]\nweb_search = false\n"), "does not enforce", 2},
		{"a bad value", requirementsFile(t, "allowed_approval_policies = [\"sometimes\"]\n"), `"sometimes" is not one of`, 1},
	}
	for _, tc := range cases {
		_, err := Load(LoadOptions{Home: homeWith(t, ""), RequirementsFiles: []string{tc.path}})
		var e *Error
		if !errors.As(err, &e) || e.Source != tc.path || !strings.Contains(e.Msg, tc.msg) || (tc.line != 0 && e.Line != tc.line) {
			t.Errorf("%s: err = %v (%+v), want %s naming %q at line %d", tc.name, err, e, tc.path, tc.msg, tc.line)
		}
	}
	// An absent file is no requirement.
	mustLoad(t, LoadOptions{Home: homeWith(t, ""), RequirementsFiles: []string{filepath.Join(t.TempDir(), "absent.toml")}})
}

// FuzzRequirementsFile feeds arbitrary bytes as a requirements file: it
// loads or is refused with an *Error naming the file, never a panic.
func FuzzRequirementsFile(f *testing.F) {
	f.Add([]byte("allowed_sandbox_modes = [\"read-only\"]\n[experimental_network]\nmanaged_allowed_domains_only = true\ndomains = { \"*.x.org\" = \"deny\" }\n"))
	f.Add([]byte("allowed_permission_profiles = []\n"))
	f.Add([]byte("[features]\nx = 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "requirements.toml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := loadRequirements([]string{p})
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Source != p) {
			t.Fatalf("error %v does not name the file", err)
		}
	})
}

// TestARequirementErrorOfAnotherKindIsSaidNotDropped: the errors the
// requirement checks return are typed today; one of another kind (a
// future check's) is said with its file, not turned into a nil
// dereference, and stays wrapped.
func TestARequirementErrorOfAnotherKindIsSaidNotDropped(t *testing.T) {
	cause := errors.New("an unforeseen refusal")
	for name, e := range map[string]*Error{
		"parse": requirementError("/etc/docket/requirements.toml", []byte("x = 1\n"), cause),
		"check": refusedByRequirement(cause),
	} {
		if !errors.Is(e, cause) || !strings.Contains(e.Error(), "an unforeseen refusal") {
			t.Errorf("%s: %v does not say or wrap %v", name, e, cause)
		}
	}
	typed := requirementError("/etc/docket/requirements.toml", []byte("a = 1\nallowed_sandbox_modes = []\n"), &permissions.Error{Key: "allowed_sandbox_modes", Msg: "empty"})
	if typed.Line != 2 || typed.Key != "allowed_sandbox_modes" {
		t.Errorf("a typed error: %+v, want line 2 and its key", typed)
	}
}
