package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeIn(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestProfilesComeFromAFileOrATable: a profile is NAME.config.toml beside
// config.toml (Codex 0.169+) or [profiles.NAME] (older Codex); it sits
// above the file and below -c and the flags; both for one name, a profile
// file setting trust, or an unknown name are errors that say so.
func TestProfilesComeFromAFileOrATable(t *testing.T) {
	for _, tc := range []struct {
		name, config, file, profile string
		override                    []string
		model, err                  string
	}{
		{name: "file", config: "model = 'base'\n", file: "model = 'deep'\n", profile: "deep", model: "deep"},
		{name: "file without config.toml", file: "model = 'deep'\n", profile: "deep", model: "deep"},
		{name: "file selected by profile key", config: "profile = 'deep'\nmodel = 'base'\n", file: "model = 'deep'\n", model: "deep"},
		{name: "table", config: "model = 'base'\n[profiles.deep]\nmodel = 'table'\n", profile: "deep", model: "table"},
		{name: "-c wins over the file", config: "model = 'base'\n", file: "model = 'deep'\n", profile: "deep", override: []string{"model=cli"}, model: "cli"},
		{name: "both", config: "[profiles.deep]\nmodel = 'table'\n", file: "model = 'deep'\n", profile: "deep", err: "defined twice"},
		{name: "trust in a profile file", config: "model = 'base'\n", file: "[projects.'/a']\ntrust_level = 'trusted'\n", profile: "deep", err: "cannot set projects"},
		{name: "unknown", config: "[profiles.fast]\n", file: "model = 'x'\n", profile: "dep", err: "defined: deep, fast; did you mean \"deep\"?"},
		{name: "a path is not a name", config: "model = 'base'\n", profile: "../x", err: "not a profile name"},
		{name: "a bad key in the file", config: "model = 'base'\n", file: "modle = 'x'\n", profile: "deep", err: "deep.config.toml:1: modle: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := homeWith(t, tc.config)
			if tc.file != "" {
				writeIn(t, home, "deep.config.toml", tc.file)
			}
			c, err := Load(LoadOptions{Home: home, Profile: tc.profile, Overrides: tc.override})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Load = %v; want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Model != tc.model {
				t.Errorf("model %q, want %q", c.Model, tc.model)
			}
			if tc.file != "" && tc.model == "deep" {
				if s, _ := c.Sources.Of("model"); s.Layer != LayerProfile || !strings.HasSuffix(s.File, "deep.config.toml") {
					t.Errorf("model's source = %+v", s)
				}
			}
		})
	}
}

// TestACodexHomeIsReadWhenDocketHasNoConfig: without --home, $DOCKET_HOME
// or ~/.docket/config.toml, the Codex home's config is read and said; any
// of them keeps Docket's.
func TestACodexHomeIsReadWhenDocketHasNoConfig(t *testing.T) {
	home := t.TempDir()
	codex := filepath.Join(home, "codex")
	if err := os.MkdirAll(codex, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, codex, FileName, "model = 'from-codex'\n")
	env := map[string]string{"HOME": home, "CODEX_HOME": codex}
	get := func(k string) string { return env[k] }
	c := mustLoad(t, LoadOptions{Env: get})
	if c.Model != "from-codex" || c.CodexHome != codex || c.ConfigHome != codex || c.Home != filepath.Join(home, ".docket") {
		t.Errorf("model %q codex home %q config home %q home %q", c.Model, c.CodexHome, c.ConfigHome, c.Home)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "reading Codex's "+filepath.Join(codex, FileName)) {
		t.Errorf("notes %q", c.Notes)
	}
	if err := os.MkdirAll(filepath.Join(home, ".docket"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, filepath.Join(home, ".docket"), FileName, "model = 'from-docket'\n")
	if c := mustLoad(t, LoadOptions{Env: get}); c.Model != "from-docket" || c.CodexHome != "" || len(c.Notes) != 0 {
		t.Errorf("with a Docket config: model %q codex home %q notes %q", c.Model, c.CodexHome, c.Notes)
	}
	if c := mustLoad(t, LoadOptions{Env: get, Home: t.TempDir()}); c.CodexHome != "" {
		t.Errorf("--home given, the Codex home was read")
	}
}

// TestOSSChoosesALocalProviderAndModel: --oss takes oss_provider (else
// ollama) and gpt-oss:20b unless a model was chosen; --local-provider
// wins; an unknown local provider is an error.
func TestOSSChoosesALocalProviderAndModel(t *testing.T) {
	lm := "lmstudio"
	bad := "vllm"
	m := "qwen3"
	for _, tc := range []struct {
		name, config  string
		flags         Flags
		provider, mdl string
		err           string
	}{
		{"default ollama", "", Flags{OSS: true}, ProviderOllama, DefaultOSSModel, ""},
		{"oss_provider", "oss_provider = 'lmstudio'\n", Flags{OSS: true}, ProviderLMStudio, DefaultOSSModel, ""},
		{"flag wins", "oss_provider = 'ollama'\n", Flags{LocalProvider: &lm}, ProviderLMStudio, DefaultOSSModel, ""},
		{"a chosen model stays", "", Flags{OSS: true, Model: &m}, ProviderOllama, "qwen3", ""},
		{"unknown provider", "", Flags{LocalProvider: &bad}, "", "", "not a valid local provider"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(LoadOptions{Home: homeWith(t, tc.config), Flags: tc.flags})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Load = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.ModelProvider != tc.provider || c.Model != tc.mdl || c.APIKeyEnv != "" {
				t.Errorf("provider %q model %q key env %q", c.ModelProvider, c.Model, c.APIKeyEnv)
			}
		})
	}
}

// TestModelCatalogJSONIsReadAndChecked: the catalog's context window is
// used when model_context_window is not set; a bad catalog is an error
// naming the key and the line.
func TestModelCatalogJSONIsReadAndChecked(t *testing.T) {
	for _, tc := range []struct {
		name, catalog string
		window        int64
		err           string
	}{
		{"good", `{"models":[{"slug":"m1","context_window":123456}]}`, 123456, ""},
		{"no models", `{"data":[]}`, 0, `no "models" list`},
		{"no slug", `{"models":[{"context_window":1}]}`, 0, "has no slug"},
		{"negative window", `{"models":[{"slug":"m1","context_window":-1}]}`, 0, "negative"},
		{"not json", `models`, 0, "is not a model catalog"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := homeWith(t, "model = 'm1'\nmodel_catalog_json = 'models.json'\n")
			writeIn(t, home, "models.json", tc.catalog)
			c, err := Load(LoadOptions{Home: home})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "config.toml:2: model_catalog_json") {
					t.Fatalf("Load = %v, want %q at config.toml:2", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.ContextWindow() != tc.window {
				t.Errorf("window %d, want %d", c.ContextWindow(), tc.window)
			}
		})
	}
	if _, err := Load(LoadOptions{Home: homeWith(t, "model_catalog_json = 'missing.json'\n")}); err == nil || !strings.Contains(err.Error(), "cannot read the model catalog") {
		t.Errorf("a missing catalog: %v", err)
	}
}

// FuzzReadModelCatalog: any bytes give a catalog or an error, never a
// panic, and a catalog has no negative window.
func FuzzReadModelCatalog(f *testing.F) {
	f.Add([]byte(`{"models":[{"slug":"a","context_window":1}]}`))
	f.Add([]byte(`{"models":null}`))
	f.Add([]byte(`{"models":[{"slug":""}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cat, err := ReadModelCatalog(p)
		if err != nil {
			return
		}
		for slug, w := range cat {
			if slug == "" || w < 0 {
				t.Fatalf("catalog %v", cat)
			}
		}
	})
}
