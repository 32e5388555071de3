package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dev is a permission profile with the network on, under prefix.
func dev(prefix string) string {
	return "[" + prefix + "permissions.dev.filesystem]\n\":root\" = \"read\"\n[" + prefix + "permissions.dev.network]\nenabled = true\n[" +
		prefix + "permissions.dev.network.domains]\n\"base.test\" = \"allow\"\n"
}

func TestAnAlwaysAnswerGoesToTheFileThatDefinesTheProfile(t *testing.T) {
	cases := []struct {
		name string
		// config is $DOCKET_HOME/config.toml; profileFile a --profile file
		// beside it; project the trusted workspace's .docket/config.toml.
		config, profileFile, project string
		profile                      string
		// wantFile is "config", "profile" or "" (refused, err naming it).
		wantFile, wantKey, err string
	}{
		{name: "the user's config file", config: dev(""), wantFile: "config",
			wantKey: `permissions.dev.network.domains."new.test"`},
		{name: "a Codex profile's table in the config file", config: "[profiles.work]\nmodel = 'o3'\n" + dev("profiles.work."), profile: "work",
			wantFile: "config", wantKey: `profiles.work.permissions.dev.network.domains."new.test"`},
		{name: "a profile's table over the file's own dev: the profile's", config: dev("") + "[profiles.work]\nmodel = 'o3'\n[profiles.work.permissions.dev.network]\nmode = 'full'\n", profile: "work",
			wantFile: "config", wantKey: `profiles.work.permissions.dev.network.domains."new.test"`},
		{name: "a --profile file", profileFile: dev(""), profile: "work", wantFile: "profile",
			wantKey: `permissions.dev.network.domains."new.test"`},
		{name: "a project's dev is refused", project: dev(""), err: "project"},
		{name: "a project widening the user's dev is refused", config: dev(""), project: "[permissions.dev.network.domains]\n\"evil.test\" = \"allow\"\n", err: "project"},
		// The decoder gives [Permissions] to the permissions field as it
		// gives [permissions]: the project's keys widen dev all the same.
		{name: "a project widening the user's dev in another case is refused", config: dev(""), project: "[Permissions.dev.network.domains]\n\"evil.test\" = \"allow\"\n", err: "project"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			trust := "[projects.'" + ws + "']\ntrust_level = 'trusted'\n"
			home := homeWith(t, trust+tc.config)
			if tc.profileFile != "" {
				if err := os.WriteFile(profileFile(filepath.Join(home, FileName), tc.profile), []byte(tc.profileFile), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tc.project != "" {
				if err := os.MkdirAll(filepath.Join(ws, ProjectDirName), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, ProjectDirName, FileName), []byte(tc.project), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := LoadOptions{Home: home, Profile: tc.profile, Cwd: ws, Flags: Flags{Permissions: ptr("dev")}}
			c := mustLoad(t, opts)
			rule, err := c.AlwaysRuleFor("dev")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("AlwaysRuleFor = %+v, %v; want an error naming %q", rule, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(home, FileName)
			if tc.wantFile == "profile" {
				want = profileFile(want, tc.profile)
			}
			if rule.File != want {
				t.Fatalf("file %s, want %s", rule.File, want)
			}
			key, err := rule.Prepare("new.test")
			if err != nil || key != tc.wantKey {
				t.Fatalf("Prepare: %q %v, want %q", key, err, tc.wantKey)
			}
			if key, err := rule.Write("new.test"); err != nil || key != tc.wantKey {
				t.Fatalf("Write: %q %v", key, err)
			}
			// The profile the answer was about now allows the host; the
			// user's dev without the Codex profile does not.
			if got := mustLoad(t, opts).Permissions["dev"].Network.Domains["new.test"]; got != "allow" {
				t.Fatalf("after the write, dev's new.test = %q", got)
			}
			if tc.profile != "" {
				base := mustLoad(t, LoadOptions{Home: home, Cwd: ws})
				if p, ok := base.Permissions["dev"]; ok && p.Network != nil && p.Network.Domains["new.test"] != "" {
					t.Fatalf("the rule widened the user's dev outside profile %s", tc.profile)
				}
			}
		})
	}
}

func TestAnAlwaysAnswerForABuiltInOrUndefinedProfileIsRefused(t *testing.T) {
	c := mustLoad(t, LoadOptions{Home: homeWith(t, "")})
	for _, name := range []string{":workspace", "nowhere"} {
		if _, err := c.AlwaysRuleFor(name); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("AlwaysRuleFor(%s) = %v, want an error naming it", name, err)
		}
	}
}
