package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Profiles come in two forms, as Codex has had them: a [profiles.NAME]
// table in config.toml (Codex before 0.169), or a file NAME.config.toml
// beside config.toml (Codex 0.169 and later, which refuses the table).
// Docket reads both; a profile defined both ways is an error. Either is
// the profile layer: above config.toml, below a trusted project's config,
// the environment, -c and the flags.

// profileFileSuffix ends the name of a profile's own file.
const profileFileSuffix = ".config.toml"

// profileFile is the file of profile name beside the config file.
func profileFile(configPath, name string) string {
	return filepath.Join(filepath.Dir(configPath), name+profileFileSuffix)
}

// profileFileNames lists the profiles that have a file beside configPath.
func profileFileNames(configPath string) []string {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(configPath), "*"+profileFileSuffix))
	var out []string
	for _, m := range matches {
		if n := strings.TrimSuffix(filepath.Base(m), profileFileSuffix); n != "" && n != "config" {
			out = append(out, n)
		}
	}
	return out
}

// loadProfileFile reads NAME.config.toml beside the config file: nil when
// it does not exist. It may set any key but profile, profiles and
// projects (trust stays in config.toml).
func loadProfileFile(configPath, name string) (*layer, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, &Error{Source: "--profile", Msg: fmt.Sprintf("%q is not a profile name", name)}
	}
	path := profileFile(configPath, name)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Source: path, Msg: fmt.Sprintf("cannot read the profile file: %v", err), Err: err}
	}
	var c Config
	t, notes, codex, err := parseFile(path, data, &c)
	if err != nil {
		return nil, err
	}
	lines := lineIndex(data)
	for _, k := range []string{"profile", "profiles", "projects"} {
		if _, ok := t[k]; ok {
			return nil, &Error{Source: path, Line: firstLine(lines, k), Key: k,
				Msg: fmt.Sprintf("a profile file cannot set %s; it belongs in %s", k, FileName)}
		}
	}
	w := where{source: path, lines: lines}
	return &layer{tree: t, where: w, notes: notes, codexHooks: codex, source: func(key []string) Source {
		return Source{Layer: LayerProfile, File: path, Line: w.line(key), Name: name}
	}}, nil
}
