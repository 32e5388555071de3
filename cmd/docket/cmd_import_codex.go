package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
)

// importCodexFlags are import-codex's flags.
type importCodexFlags struct {
	home, cd string
	force    bool
}

func newImportCodexCmd(a *app) *cobra.Command {
	f := &importCodexFlags{}
	c := &cobra.Command{
		Use:   "import-codex",
		Short: "Copy Codex's config, profiles, rules, AGENTS.md and project trust into Docket's home",
		Long: `Copy what Codex reads into the places Docket reads:

  $CODEX_HOME (else ~/.codex)        config.toml (with its [projects] trust),
                                     NAME.config.toml profiles, rules/*.rules,
                                     AGENTS.md        -> Docket's home
  the workspace's .codex/ (-C DIR)   config.toml, rules/*.rules -> .docket/

Docket's home is --home, else $DOCKET_HOME, else ~/.docket. A file that
exists already is kept unless --force is given. The copied config is
loaded once to check it; every file copied or skipped is listed.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runImportCodex(a, f) },
	}
	c.Flags().StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	c.Flags().StringVarP(&f.cd, "cd", "C", "", "the project whose .codex/ is copied to .docket/ (default: the current directory)")
	c.Flags().BoolVar(&f.force, "force", false, "replace files that exist in Docket's home or .docket/")
	return c
}

// importStep is one file import-codex copied or left.
type importStep struct{ from, to, what string }

func runImportCodex(a *app, f *importCodexFlags) error {
	home, err := config.ResolveHome(f.home, os.Getenv)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	src := config.CodexHome(os.Getenv)
	cwd, err := workspace(f.cd)
	if err != nil {
		return err
	}
	var pairs [][2]string
	if src != "" {
		pairs = append(pairs, [2]string{filepath.Join(src, config.FileName), filepath.Join(home, config.FileName)},
			[2]string{filepath.Join(src, "AGENTS.md"), filepath.Join(home, "AGENTS.md")})
		profiles, _ := filepath.Glob(filepath.Join(src, "*.config.toml"))
		sort.Strings(profiles)
		for _, p := range profiles {
			pairs = append(pairs, [2]string{p, filepath.Join(home, filepath.Base(p))})
		}
		pairs = append(pairs, rulesPairs(filepath.Join(src, "rules"), filepath.Join(home, "rules"))...)
		if cat := relativeCatalog(filepath.Join(src, config.FileName)); cat != "" {
			pairs = append(pairs, [2]string{filepath.Join(src, cat), filepath.Join(home, cat)})
		}
	}
	proj := filepath.Join(cwd, config.CodexProjectDir)
	pairs = append(pairs, [2]string{filepath.Join(proj, config.FileName), filepath.Join(cwd, config.ProjectDirName, config.FileName)})
	pairs = append(pairs, rulesPairs(filepath.Join(proj, "rules"), filepath.Join(cwd, config.ProjectDirName, "rules"))...)

	var steps []importStep
	copied := 0
	for _, p := range pairs {
		what, err := importFile(p[0], p[1], f.force)
		if err != nil {
			return err
		}
		if what != "" {
			steps = append(steps, importStep{from: p[0], to: p[1], what: what})
			if what == "copied" {
				copied++
			}
		}
	}
	if len(steps) == 0 {
		return usageErrorf("import-codex: nothing to import: no %s and no %s", filepath.Join(src, config.FileName), proj)
	}
	for _, s := range steps {
		fmt.Fprintf(a.stdout, "%-8s %s -> %s\n", s.what, s.from, s.to)
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Env: os.Getenv, Cwd: cwd})
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("import-codex: the imported configuration does not load: %w", err)}
	}
	trusted := 0
	for _, p := range cfg.Projects {
		if p.TrustLevel == config.TrustTrusted {
			trusted++
		}
	}
	fmt.Fprintf(a.stdout, "imported %d file(s) into %s; %d trusted project(s); the configuration loads\n", copied, home, trusted)
	printWarnings(a.stderr, cfg)
	return nil
}

// relativeCatalog is the config's model_catalog_json when it names a file
// inside the config's folder by a relative path (which the copy must keep
// beside it); "" otherwise.
func relativeCatalog(configPath string) string {
	b, err := os.ReadFile(configPath)
	if err != nil {
		return ""
	}
	var doc struct {
		Catalog string `toml:"model_catalog_json"`
	}
	if toml.Unmarshal(b, &doc) != nil || doc.Catalog == "" || filepath.IsAbs(doc.Catalog) || !filepath.IsLocal(doc.Catalog) {
		return ""
	}
	return filepath.Clean(doc.Catalog)
}

// rulesPairs pairs each *.rules file of from with its place in to.
func rulesPairs(from, to string) [][2]string {
	matches, _ := filepath.Glob(filepath.Join(from, "*.rules"))
	sort.Strings(matches)
	out := make([][2]string, 0, len(matches))
	for _, m := range matches {
		out = append(out, [2]string{m, filepath.Join(to, filepath.Base(m))})
	}
	return out
}

// importFile copies one regular file: "copied", "kept" (the target exists
// and force is off), or "" when there is no such source.
func importFile(from, to string, force bool) (string, error) {
	st, err := os.Stat(from)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("import-codex: %w", err)
	}
	if !st.Mode().IsRegular() {
		return "", nil
	}
	if _, err := os.Lstat(to); err == nil && !force {
		return "kept", nil
	}
	in, err := os.Open(from)
	if err != nil {
		return "", fmt.Errorf("import-codex: %w", err)
	}
	defer func() { _ = in.Close() }() // read-only
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return "", fmt.Errorf("import-codex: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(to), "."+filepath.Base(to)+".import-*")
	if err != nil {
		return "", fmt.Errorf("import-codex: %w", err)
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), st.Mode().Perm()&0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), to)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("import-codex: copy %s to %s: %w", from, to, err)
	}
	return "copied", nil
}
