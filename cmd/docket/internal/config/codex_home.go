package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CodexHome is Codex's home: $CODEX_HOME, else ~/.codex; "" without $HOME.
func CodexHome(env func(string) string) string {
	if h := env("CODEX_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			return abs
		}
		return h
	}
	if h := env("HOME"); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// codexHomeInstead returns the Codex home to read when Docket's config
// file does not exist and Codex's does; "" otherwise.
func codexHomeInstead(docketFile string, env func(string) string) string {
	if _, err := os.Stat(docketFile); err == nil || !os.IsNotExist(err) {
		return ""
	}
	ch := CodexHome(env)
	if ch == "" {
		return ""
	}
	if st, err := os.Stat(filepath.Join(ch, FileName)); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return ch
}

// CodexProjectDir is the folder of a project's Codex files.
const CodexProjectDir = ".codex"

// projectCodexNote says that a project's .codex/rules are not loaded and
// how to bring them over; "" when it has none. Its .codex/config.toml loads
// as the project's layer when the project is trusted.
func projectCodexNote(dir string) string {
	rules := filepath.Join(dir, CodexProjectDir, "rules")
	if _, err := os.Stat(rules); err != nil {
		return ""
	}
	return fmt.Sprintf("project %s has %s, which Docket does not load (a project's rules are read from %s); `docket import-codex -C %s` copies them there",
		dir, rules, filepath.Join(dir, ProjectDirName, "rules"), dir)
}

// ossLayer applies --oss and --local-provider to the merged tree: the
// local provider (the flag, else oss_provider, else ollama) and, when no
// layer above the defaults chose a model, DefaultOSSModel.
func ossLayer(cfg *Config, merged tree, f Flags) error {
	name, src := ProviderOllama, Source{Layer: LayerFlag, Name: "--oss"}
	if v, ok := merged["oss_provider"].(string); ok && v != "" {
		name = v
		src, _ = cfg.Sources.Of("oss_provider")
	}
	if f.LocalProvider != nil {
		name, src = *f.LocalProvider, Source{Layer: LayerFlag, Name: "--local-provider"}
	}
	if !slices.Contains(ossProviders(), name) {
		return src.errorf([]string{"oss_provider"}, "", "%s", notOneOf(name, "local provider", ossProviders()))
	}
	merged["model_provider"] = name
	cfg.Sources["model_provider"] = src
	if s, _ := cfg.Sources.Of("model"); s.Layer == LayerDefault {
		merged["model"] = DefaultOSSModel
		cfg.Sources["model"] = Source{Layer: LayerFlag, Name: "--oss"}
	}
	return nil
}

// applyCodexExtras gives the Codex extras their meaning once the layers
// are merged: the token limit as a byte cap, the model catalog read and
// checked, the fallback file names checked.
func applyCodexExtras(cfg *Config, merged tree) error {
	at := func(key string) Source {
		s, _ := cfg.Sources.Of(key)
		return s
	}
	if cfg.ToolOutputTokenLimit < 0 {
		return at("tool_output_token_limit").errorf([]string{"tool_output_token_limit"}, "", "%d is negative", cfg.ToolOutputTokenLimit)
	}
	if cfg.ToolOutputTokenLimit > 0 && at("tool_output_max_bytes").Layer == LayerDefault {
		// Codex counts four bytes a token.
		cfg.ToolOutputMaxBytes = cfg.ToolOutputTokenLimit * 4
	}
	for _, n := range cfg.ProjectDocFallbackFilenames {
		if n == "" || strings.ContainsAny(n, `/\`) || n == "." || n == ".." {
			return at("project_doc_fallback_filenames").errorf([]string{"project_doc_fallback_filenames"}, "", "%q is not a file name (no folders)", n)
		}
	}
	if cfg.ModelCatalogJSON != "" {
		src := at("model_catalog_json")
		path := cfg.ModelCatalogJSON
		if !filepath.IsAbs(path) && src.File != "" {
			path = filepath.Join(filepath.Dir(src.File), path)
		}
		cat, err := ReadModelCatalog(path)
		if err != nil {
			return src.errorf([]string{"model_catalog_json"}, "", "%v", err)
		}
		cfg.ModelCatalogJSON, cfg.catalog = path, cat
	}
	return nil
}

// ReadModelCatalog reads a Codex model catalog ({"models":[{"slug":...}]},
// as `codex debug models` prints it) and returns the context window of
// each model that states one.
func ReadModelCatalog(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the model catalog: %w", err)
	}
	var doc struct {
		Models []struct {
			Slug          *string `json:"slug"`
			ContextWindow *int64  `json:"context_window"`
		} `json:"models"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not a model catalog: %w", path, err)
	}
	if doc.Models == nil {
		return nil, fmt.Errorf("%s is not a model catalog: no \"models\" list", path)
	}
	out := map[string]int64{}
	for i, m := range doc.Models {
		if m.Slug == nil || *m.Slug == "" {
			return nil, fmt.Errorf("%s: model %d has no slug", path, i)
		}
		if m.ContextWindow != nil {
			if *m.ContextWindow < 0 {
				return nil, fmt.Errorf("%s: model %q: context_window %d is negative", path, *m.Slug, *m.ContextWindow)
			}
			out[*m.Slug] = *m.ContextWindow
		}
	}
	return out, nil
}
