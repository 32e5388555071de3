package config

import (
	"fmt"
	"github.com/docket-engine/docket/sandbox/stubs"
	"os"
	"path/filepath"
	"strings"
)

// Trust levels of [projects."<path>"] trust_level, as Codex spells them.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
)

func trustLevels() []string { return []string{TrustTrusted, TrustUntrusted} }

// Project is one [projects."<path>"] table.
type Project struct {
	TrustLevel string `toml:"trust_level"`
}

// ProjectDirName is the folder of a project's own Docket files: its rules
// (.docket/rules) and its config (.docket/config.toml).
const ProjectDirName = ".docket"

// Trust is what [projects] says about the workspace.
type Trust struct {
	// Level is TrustTrusted, TrustUntrusted, or "" when no entry matches.
	Level string
	// Key is the [projects] entry that matched: the workspace itself, else
	// the root of the git repository holding it (as Codex looks it up).
	Key string
}

// Trusted reports whether the project's own files may load.
func (t Trust) Trusted() bool { return t.Level == TrustTrusted }

// trustOf finds the [projects] entry for dir: an entry for dir itself,
// else for the git repository root above it. Paths compare after
// cleaning and resolving symlinks.
func trustOf(projects map[string]Project, dir string) Trust {
	if dir == "" || len(projects) == 0 {
		return Trust{}
	}
	byPath := map[string]string{}
	for k := range projects {
		byPath[canonical(k)] = k
	}
	for _, cand := range []string{canonical(dir), gitRoot(canonical(dir))} {
		if k, ok := byPath[cand]; ok && cand != "" {
			return Trust{Level: projects[k].TrustLevel, Key: k}
		}
	}
	return Trust{}
}

func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// gitRoot returns the nearest directory at or above dir holding .git, or "".
func gitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil && !stubs.LooksLikeStub(filepath.Join(d, ".git"), fi) {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// projectFiles lists the project's files a trusted project loads that
// exist: its Codex config, its config and its rules folder.
func projectFiles(dir string) []string {
	var out []string
	for _, p := range []string{filepath.Join(dir, CodexProjectDir, FileName), filepath.Join(dir, ProjectDirName, FileName), filepath.Join(dir, ProjectDirName, "rules")} {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// untrustedWarning says which of the project's files were not loaded and
// how to trust it.
func untrustedWarning(dir, userFile string, t Trust, files []string) string {
	why := "is not in the trust list"
	if t.Level == TrustUntrusted {
		why = fmt.Sprintf("is marked untrusted ([projects.%s])", joinKey([]string{t.Key}))
	}
	return fmt.Sprintf("project %s %s, so its %s were not loaded; to load them add [projects.%s] trust_level = %q to %s",
		dir, why, strings.Join(files, " and "), joinKey([]string{dir}), TrustTrusted, userFile)
}

// TrustFor is what [projects] says about dir, which need not be the
// workspace Load was given (a resumed session's own directory).
func (c *Config) TrustFor(dir string) Trust { return trustOf(c.Projects, dir) }
