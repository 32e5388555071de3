package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddAllowedDomainEditsOneLine(t *testing.T) {
	cases := []struct {
		name, text, want string
		err              string
	}{
		{"the table exists", "model = \"o3\"\n\n[permissions.dev.network.domains]\n\"pypi.org\" = \"allow\"\n\n[other]\nx = 1\n",
			"model = \"o3\"\n\n[permissions.dev.network.domains]\n\"example.com\" = \"allow\"\n\"pypi.org\" = \"allow\"\n\n[other]\nx = 1\n", ""},
		{"no table yet", "# mine\n[permissions.dev.network]\nenabled = true\n",
			"# mine\n[permissions.dev.network]\nenabled = true\n\n[permissions.dev.network.domains]\n\"example.com\" = \"allow\"\n", ""},
		{"domains written inline", "[permissions.dev.network]\ndomains = { \"a.org\" = \"allow\" }\n", "", "edit it by hand"},
		{"a built-in", "", "", "built-in"},
		{"not TOML", "[[[", "", "not valid TOML"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			profile := "dev"
			if tc.name == "a built-in" {
				profile = ":workspace"
			}
			got, key, err := AddAllowedDomain(tc.text, profile, "EXAMPLE.com.")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want || key != `permissions.dev.network.domains."example.com"` {
				t.Fatalf("got %q key %q err %v, want\n%q", got, key, err, tc.want)
			}
		})
	}
}

func TestAllowDomainAlwaysWritesAProfileTheNextLoadUses(t *testing.T) {
	home := homeWith(t, "[permissions.dev.filesystem]\n\":root\" = \"read\"\n")
	path := filepath.Join(home, FileName)
	key, err := AllowDomainAlways(path, "dev", "pypi.org")
	if err != nil || key != `permissions.dev.network.domains."pypi.org"` {
		t.Fatalf("key %q err %v", key, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "[permissions.dev.network.domains]\n\"pypi.org\" = \"allow\"") {
		t.Fatalf("config now:\n%s", data)
	}
	// The file still loads, and the key is there.
	c := mustLoad(t, LoadOptions{Home: home})
	if c.Permissions["dev"].Network == nil || c.Permissions["dev"].Network.Domains["pypi.org"] != "allow" {
		t.Fatalf("loaded profile: %+v", c.Permissions["dev"])
	}
}
