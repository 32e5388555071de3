package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/states/permissions"
)

// configSeeds are config texts with the shapes the loader treats apart:
// tables it checks, permission profiles, keys a project may not set.
var configSeeds = []string{
	"model = 'x'\n",
	"approval_policy = 'never'\nsandbox_mode = 'workspace-write'\n",
	"[permissions.dev]\nfilesystem = { ':project_roots' = 'write', '/etc' = 'read' }\n[permissions.dev.network]\nenabled = true\ndomains = { 'example.com' = 'allow', '*.x.test' = 'deny' }\n",
	"default_permissions = 'dev'\n[permissions.dev.filesystem]\n'~/.ssh' = 'none'\n",
	"[permissions.dev.network]\nmode = 'limited'\nenable_socks5 = 1\n",
	"[projects.'/x']\ntrust_level = 'trusted'\n",
	"[Projects.'/x']\ntrust_level = 'trusted'\n",
	"profile = 'p'\n[profiles.p]\nmodel = 'y'\n",
	"[mcp_servers.a]\ncommand = 'x'\nargs = [1]\n",
	"[hooks]\nx = 1\n",
	"shell_environment_policy.set = { A = 'b' }\n",
	"a = \"\\u0000\"\n",
}

// checkFileError fails unless err is what Load promises (an *Error, or
// Errors) and every error in it names the file that was fuzzed: the only
// input that differs from a good configuration.
func checkFileError(t *testing.T, err error, path string) {
	t.Helper()
	var list Errors
	var one *Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = Errors{one}
	default:
		t.Fatalf("error %v (%T) is neither an *Error nor Errors", err, err)
	}
	for _, e := range list {
		if e.Source != path {
			t.Fatalf("an error in %s names %q: %v", path, e.Source, e)
		}
		if strings.Contains(e.Error(), "\n") {
			t.Fatalf("error is not one line: %q", e.Error())
		}
	}
}

// FuzzProjectConfigFile loads a trusted project whose .docket/config.toml
// is any text (a cloned repository's file): Load gives a configuration or
// errors that name that file; and the project never sets trust.
func FuzzProjectConfigFile(f *testing.F) {
	for _, s := range configSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		home, project := t.TempDir(), t.TempDir()
		write(t, filepath.Join(home, FileName), "[projects."+joinKey([]string{project})+"]\ntrust_level = 'trusted'\n")
		path := filepath.Join(project, ProjectDirName, FileName)
		write(t, path, text)
		c, err := Load(LoadOptions{Home: home, Cwd: project, RequirementsFiles: []string{}})
		if err != nil {
			checkFileError(t, err, path)
			return
		}
		if !c.Trust.Trusted() || c.Trust.Key != project {
			t.Fatalf("the project changed its trust to %+v", c.Trust)
		}
	})
}

// FuzzProfileFile loads a profile kept in its own NAME.config.toml (any
// text): a configuration, or errors that name that file.
func FuzzProfileFile(f *testing.F) {
	for _, s := range configSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		home := t.TempDir()
		write(t, filepath.Join(home, FileName), "model = 'base'\n")
		path := profileFile(filepath.Join(home, FileName), "p")
		write(t, path, text)
		c, err := Load(LoadOptions{Home: home, Profile: "p", RequirementsFiles: []string{}})
		if err != nil {
			checkFileError(t, err, path)
			return
		}
		if c.Profile != "p" {
			t.Fatalf("profile %q, want p", c.Profile)
		}
	})
}

// FuzzAddAllowedDomain adds any host (a sandboxed command names it) to any
// config text's profile: the edit is refused, or it keeps every line of
// the file, in order, and parses to the file plus that host, allowed.
func FuzzAddAllowedDomain(f *testing.F) {
	for _, s := range configSeeds {
		f.Add(s, "dev", "example.org")
	}
	f.Add("[permissions.dev.network.domains]\n'a.test' = 'deny'\n", "dev", "B.test.")
	f.Add("[permissions.dev.network]\ndomains = { 'a.test' = 'deny' }\n", "dev", "b.test")
	f.Add("[permissions.'d.v'.network.domains] # c\n", "d.v", "bücher.de")
	f.Add("x = '''\n[permissions.dev.network.domains]\n'''\n", "dev", "b.test")
	f.Add("", "dev", "evil.test\"]\n[x]\ny = \"")
	f.Fuzz(func(t *testing.T, text, profile, host string) {
		after, key, err := AddAllowedDomain(text, profile, host)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("a refusal without a reason")
			}
			return
		}
		h, err := permissions.NormaliseHost(host)
		if err != nil {
			t.Fatalf("wrote %q, which is not a host name: %v", host, err)
		}
		if want := joinKey(append(domainsTable(nil, profile), h)); key != want {
			t.Fatalf("key %q, want %q", key, want)
		}
		old, got := strings.Split(strings.TrimSuffix(text, "\n"), "\n"), strings.Split(after, "\n")
		for i := 0; len(old) > 0 && i < len(got); i++ {
			if got[i] == old[0] {
				old = old[1:]
			}
		}
		if len(old) > 0 {
			t.Fatalf("the edit lost the line %q:\n%s", old[0], after)
		}
		var before, doc map[string]any
		if err := toml.Unmarshal([]byte(text), &before); err != nil {
			t.Fatalf("edited a file that does not parse: %v", err)
		}
		if err := toml.Unmarshal([]byte(after), &doc); err != nil {
			t.Fatalf("the edit does not parse: %v", err)
		}
		m := doc
		for _, k := range domainsTable(nil, profile) {
			m, _ = m[k].(map[string]any)
		}
		if m == nil || m[h] != "allow" {
			t.Fatalf("%s is not allowed in the edit:\n%s", h, after)
		}
		delete(m, h)
		setDomainTables(before, domainsTable(nil, profile))
		if !reflect.DeepEqual(before, doc) {
			t.Fatalf("the edit changed other settings:\n%s", after)
		}
	})
}

// setDomainTables makes the tables on path, as adding a key under them does.
func setDomainTables(m map[string]any, path []string) {
	for _, p := range path {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
