package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/states/policy"
)

// FileName is the config file's name under Docket's home.
const FileName = "config.toml"

// LoadOptions says what Load reads besides the config file.
type LoadOptions struct {
	// Home is the --home flag, or "" when it was not given.
	Home string
	// Profile is the --profile flag, or "".
	Profile string
	// Env looks up an environment variable; nil means an empty
	// environment. Load reads nothing from the process environment itself.
	Env func(string) string
	// Overrides are the -c KEY=VALUE arguments, in order.
	Overrides []string
	// Flags are the flags that set config keys; nil pointers were not given.
	Flags Flags
	// RequirementsFiles are the managed requirements files; nil means
	// DefaultRequirementsFiles.
	RequirementsFiles []string
	// Cwd is the workspace: its [projects] trust is looked up, and when
	// trusted its .docket/config.toml is a layer above the profile. ""
	// means no project.
	Cwd string
}

// Flags holds the command-line flags that set config keys. A nil field
// means the flag was not given.
type Flags struct {
	Model          *string // -m, --model
	ApprovalPolicy *string // -a, --ask-for-approval
	SandboxMode    *string // -s, --sandbox
	ModelScript    *string // --model-script (selects the script provider)
	Permissions    *string // --permissions (default_permissions)
	// OSS is --oss: a local provider (LocalProvider, else oss_provider,
	// else ollama) and, unless one is chosen, DefaultOSSModel.
	OSS           bool
	LocalProvider *string // --local-provider (implies --oss)
	// ExecApproval is exec's own approval policy when neither -a nor a -c
	// chose one: never, as codex exec runs whatever the config says.
	ExecApproval *string
}

// layer is one source of key/value pairs, already parsed.
type layer struct {
	tree   tree
	source func(key []string) Source
	where  where
	// notes are what reading the layer's file has to say once.
	notes []string
	// codexHooks are the Codex hooks of the layer's file, which Docket
	// does not run.
	codexHooks []CodexHook
}

// Load builds the effective configuration from every layer, validating
// each. Every error it returns is an *Error, or Errors holding several
// (all the unknown keys of a file at once).
func Load(opts LoadOptions) (*Config, error) {
	env := opts.Env
	if env == nil {
		env = func(string) string { return "" }
	}
	home, err := ResolveHome(opts.Home, env)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Home: home, File: filepath.Join(home, FileName), ConfigHome: home, Profile: opts.Profile, Tmpdir: env("TMPDIR"), ProjectDir: opts.Cwd}
	if opts.Home == "" && env("DOCKET_HOME") == "" {
		if ch := codexHomeInstead(cfg.File, env); ch != "" {
			cfg.CodexHome, cfg.ConfigHome, cfg.File = ch, ch, filepath.Join(ch, FileName)
			cfg.Notes = append(cfg.Notes, fmt.Sprintf("there is no %s: reading Codex's %s (its rules and AGENTS.md too); `docket import-codex` copies them to Docket's home",
				filepath.Join(home, FileName), cfg.File))
		}
	}

	def, err := defaultsLayer()
	if err != nil {
		return nil, err
	}
	file, err := loadFile(cfg.File, opts.Profile)
	if err != nil {
		return nil, err
	}
	cfg.Profile = file.profile
	cfg.Notes = append(cfg.Notes, file.warnings...)
	var upper []layer
	upper = append(upper, envLayer(env))
	for _, text := range opts.Overrides {
		if w := ignoredOverride(text); w != "" {
			cfg.Warnings = append(cfg.Warnings, w)
			continue
		}
		l, err := overrideLayer(text)
		if err != nil {
			return nil, err
		}
		upper = append(upper, l)
	}
	upper = append(upper, flagLayer(opts.Flags)...)

	// Trust comes from every layer but the project's own: a project cannot
	// trust itself.
	layers := append(append([]layer{def}, file.layers...), upper...)
	merged, err := mergeLayers(cfg, layers)
	if err != nil {
		return nil, err
	}
	var userEnv struct {
		P ShellEnvPolicy `toml:"shell_environment_policy"`
	}
	if err := decodeTree(merged, &userEnv); err != nil {
		return nil, &Error{Source: "merged configuration", Key: "shell_environment_policy", Msg: err.Error(), Err: err}
	}
	if opts.Cwd != "" {
		var projects map[string]Project
		if pt, ok := merged["projects"].(tree); ok {
			if err := decodeTree(tree{"projects": pt}, &struct {
				P *map[string]Project `toml:"projects"`
			}{&projects}); err != nil {
				return nil, &Error{Source: "merged configuration", Key: "projects", Msg: err.Error(), Err: err}
			}
		}
		cfg.Trust = trustOf(projects, opts.Cwd)
		if n := projectCodexNote(opts.Cwd); n != "" {
			cfg.Notes = append(cfg.Notes, n)
		}
		files := projectFiles(opts.Cwd)
		switch {
		case len(files) == 0:
		case !cfg.Trust.Trusted():
			cfg.Warnings = append(cfg.Warnings, untrustedWarning(opts.Cwd, cfg.File, cfg.Trust, files))
		default:
			// A Codex project's .codex/config.toml, then Docket's own
			// .docket/config.toml over it: both are kept read-only by the
			// sandbox (policy.ProtectedNames), so no command writes the
			// next session's settings.
			var project []layer
			for _, dir := range []string{CodexProjectDir, ProjectDirName} {
				pl, warnings, err := loadProjectFile(filepath.Join(opts.Cwd, dir, FileName))
				if err != nil {
					return nil, err
				}
				cfg.Notes = append(cfg.Notes, warnings...)
				if pl != nil {
					project = append(project, *pl)
					cfg.ProjectAdditions = append(cfg.ProjectAdditions, projectAdditions(pl.where.source, pl.tree)...)
				}
			}
			if len(project) > 0 {
				layers = append(append(append([]layer{def}, file.layers...), project...), upper...)
				if merged, err = mergeLayers(cfg, layers); err != nil {
					return nil, err
				}
			}
		}
	}
	if opts.Flags.OSS || opts.Flags.LocalProvider != nil {
		if err := ossLayer(cfg, merged, opts.Flags); err != nil {
			return nil, err
		}
	}
	if err := decodeTree(merged, cfg); err != nil {
		return nil, &Error{Source: "merged configuration", Msg: err.Error(), Err: err}
	}
	cfg.HookEnvironmentPolicy = userEnv.P
	if err := checkMerged(cfg); err != nil {
		return nil, err
	}
	pre, err := hookOrigins(layers, "pre_tool", len(cfg.Hooks.PreTool))
	if err != nil {
		return nil, err
	}
	post, err := hookOrigins(layers, "post_tool", len(cfg.Hooks.PostTool))
	if err != nil {
		return nil, err
	}
	// The PATH hooks run with (Config.HookEnvironmentPolicy), to pin a
	// bare program name as it is found.
	hookPath, ok := cfg.HookEnvironmentPolicy.Set["PATH"]
	if !ok {
		hookPath = env("PATH")
	}
	if err := reviewHooks(cfg, pre, post, hookPath); err != nil {
		return nil, err
	}
	cfg.ProjectAdditions = withRunningHooks(cfg.ProjectAdditions, cfg.HookReviews)
	for _, l := range layers {
		cfg.CodexHooks = append(cfg.CodexHooks, l.codexHooks...)
	}
	cw, cn := codexHookWarnings(cfg.CodexHooks)
	cfg.Warnings, cfg.Notes = append(cfg.Warnings, cw...), append(cfg.Notes, cn...)
	if err := applyCodexExtras(cfg, merged); err != nil {
		return nil, err
	}
	if err := applyPermissions(cfg, env); err != nil {
		return nil, err
	}
	reqFiles := opts.RequirementsFiles
	if reqFiles == nil {
		reqFiles = DefaultRequirementsFiles()
	}
	if err := applyRequirements(cfg, reqFiles); err != nil {
		return nil, err
	}
	if p, ok := cfg.ModelProviders[cfg.ModelProvider]; ok && p.EnvKey != "" {
		cfg.APIKeyEnv = p.EnvKey
		cfg.APIKey = env(p.EnvKey)
	}
	if w := projectAdditionsWarning(cfg.ProjectAdditions); w != "" {
		cfg.Warnings = append(cfg.Warnings, w)
	}
	cfg.Notes = append(cfg.Notes, cfg.OTel.notes()...)
	cfg.settings, err = settingsOf(merged)
	if err != nil {
		return nil, &Error{Source: "merged configuration", Msg: err.Error(), Err: err}
	}
	return cfg, nil
}

// mergeLayers checks each layer's values and merges them, lowest first,
// recording in cfg.Sources where each key came from.
func mergeLayers(cfg *Config, layers []layer) (tree, error) {
	merged := tree{}
	cfg.Sources = Sources{}
	for _, l := range layers {
		if err := checkValues(l.tree, l.where); err != nil {
			return nil, err
		}
		merge(merged, l.tree, nil, func(key []string) { cfg.Sources[joinKey(key)] = l.source(key) })
	}
	return merged, nil
}

// decodeTree fills v from a tree by way of its TOML text.
func decodeTree(t tree, v any) error {
	b, err := toml.Marshal(t)
	if err != nil {
		return err
	}
	return toml.NewDecoder(bytes.NewReader(b)).Decode(v)
}

// ResolveHome returns Docket's home as an absolute path: flag (--home) if
// given, else $DOCKET_HOME, else $HOME/.docket. env looks up variables.
func ResolveHome(flag string, env func(string) string) (string, error) {
	if env == nil {
		env = func(string) string { return "" }
	}
	home := flag
	src := "--home"
	if home == "" {
		home, src = env("DOCKET_HOME"), "$DOCKET_HOME"
	}
	if home == "" {
		h := env("HOME")
		if h == "" {
			return "", &Error{Source: "$HOME", Msg: "cannot find Docket's home: give --home or set $DOCKET_HOME"}
		}
		home, src = filepath.Join(h, ".docket"), "$HOME"
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", &Error{Source: src, Msg: fmt.Sprintf("home %q: %v", home, err), Err: err}
	}
	return abs, nil
}

func defaultsLayer() (layer, error) {
	var t tree
	if err := toml.Unmarshal([]byte(defaultsTOML), &t); err != nil {
		return layer{}, &Error{Source: "built-in defaults", Msg: err.Error(), Err: err}
	}
	src := Source{Layer: LayerDefault}
	return layer{tree: t, source: func([]string) Source { return src }, where: where{source: "built-in defaults"}}, nil
}

// fileLayers is what config.toml contributes: its layer, the selected
// profile's layer, the profile's name and the warnings about it.
type fileLayers struct {
	layers   []layer
	profile  string
	warnings []string
}

// parseFile decodes a config file strictly into v and returns its tree
// without the ignored Codex keys, the warning naming those, and the Codex
// hooks it holds (takeCodexHooks), which are no error.
func parseFile(path string, data []byte, v any) (tree, []string, []CodexHook, error) {
	var t tree
	if err := toml.Unmarshal(data, &t); err != nil {
		return nil, nil, nil, fileDecodeError(path, err)
	}
	codex := takeCodexHooks(path, data, t)
	err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(v)
	if err == nil {
		return t, nil, codex, nil
	}
	sm, ok := asStrictMissing(err)
	if !ok {
		return nil, nil, nil, fileDecodeError(path, err)
	}
	if sm, ok = withoutCodexHookErrors(sm); !ok {
		return t, nil, codex, nil
	}
	ignored, errs := unknownKeys(path, t, sm)
	if len(errs) > 0 {
		return nil, nil, nil, errs
	}
	for _, k := range ignored {
		removeKey(t, k.key)
	}
	return t, []string{ignoredWarning(path, ignored)}, codex, nil
}

// loadFile reads config.toml (which may be absent) and returns its layer
// and, when one is selected (--profile, else the file's profile key), the
// profile's layer.
func loadFile(path, profile string) (fileLayers, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if profile != "" {
			// Codex 0.169+ keeps a profile in its own file, which needs no
			// config.toml beside it.
			if pl, perr := loadProfileFile(path, profile); perr != nil || pl != nil {
				if perr != nil {
					return fileLayers{}, perr
				}
				return fileLayers{layers: []layer{*pl}, profile: profile, warnings: pl.notes}, nil
			}
			return fileLayers{}, &Error{Source: path, Msg: fmt.Sprintf("profile %q is selected but neither the config file nor %s exists", profile, profileFile(path, profile)), Err: err}
		}
		return fileLayers{}, nil
	}
	if err != nil {
		return fileLayers{}, &Error{Source: path, Msg: fmt.Sprintf("cannot read the config file: %v", err), Err: err}
	}
	var doc fileDoc
	t, warnings, codex, err := parseFile(path, data, &doc)
	if err != nil {
		return fileLayers{}, err
	}
	lines := lineIndex(data)
	profiles, _ := t["profiles"].(tree)
	delete(t, "profiles")
	delete(t, "profile")
	w := where{source: path, lines: lines}
	fileL := layer{tree: t, where: w, codexHooks: codex, source: func(key []string) Source {
		return Source{Layer: LayerFile, File: path, Line: w.line(key)}
	}}
	out := fileLayers{layers: []layer{fileL}, warnings: warnings, profile: profile}
	if profile == "" {
		// The file's own default profile: Codex's top-level profile key.
		profile = doc.Profile
		out.profile = profile
	}
	if profile == "" {
		return out, nil
	}
	pt, ok := profiles[profile].(tree)
	pl, err := loadProfileFile(path, profile)
	if err != nil {
		return fileLayers{}, err
	}
	switch {
	case ok && pl != nil:
		return fileLayers{}, &Error{Source: path, Key: "profiles." + profile, Line: firstLine(lines, joinKey([]string{"profiles", profile})),
			Msg: fmt.Sprintf("profile %q is defined twice, by [profiles.%s] here and by %s: keep one (Codex 0.169 and later read only the file)",
				profile, profile, profileFile(path, profile))}
	case pl != nil:
		out.layers = append(out.layers, *pl)
		out.warnings = append(out.warnings, pl.notes...)
		return out, nil
	}
	if !ok {
		names := make([]string, 0, len(profiles))
		for n := range profiles {
			names = append(names, n)
		}
		names = append(names, profileFileNames(path)...)
		sort.Strings(names)
		names = slices.Compact(names)
		msg := fmt.Sprintf("profile %q is not defined (no [profiles.%s] table, no %s)", profile, joinKey([]string{profile}), profileFile(path, profile))
		if len(names) > 0 {
			msg += "; defined: " + strings.Join(names, ", ")
		}
		s := policy.Nearest(profile, names)
		if s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		e := &Error{Source: path, Msg: msg, Suggestion: s}
		if doc.Profile == profile {
			e.Key, e.Line = "profile", lines["profile"]
		}
		return fileLayers{}, e
	}
	pw := where{source: path, lines: lines, prefix: []string{"profiles", profile}}
	profL := layer{tree: pt, where: pw, source: func(key []string) Source {
		return Source{Layer: LayerProfile, File: path, Line: pw.line(key), Name: profile}
	}}
	out.layers = append(out.layers, profL)
	return out, nil
}

// loadProjectFile reads a trusted project's .docket/config.toml, if it
// exists. It may set any key but projects (trust is the user's to give)
// and profiles.
func loadProjectFile(path string) (*layer, []string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, &Error{Source: path, Msg: fmt.Sprintf("cannot read the project config file: %v", err), Err: err}
	}
	var c Config
	t, warnings, codex, err := parseFile(path, data, &c)
	if err != nil {
		return nil, nil, err
	}
	lines := lineIndex(data)
	// [Projects] is [projects] to the decoder (it folds case).
	for k := range t {
		if !strings.EqualFold(k, "projects") {
			continue
		}
		return nil, nil, &Error{Source: path, Line: firstLine(lines, joinKey([]string{k})), Key: k,
			Msg: "a project's config cannot set trust; [projects] belongs in " + FileName + " under Docket's home"}
	}
	w := where{source: path, lines: lines}
	if err := checkProjectPower(path, t, w); err != nil {
		return nil, nil, err
	}
	foldProjectHookKeys(t)
	return &layer{tree: t, where: w, codexHooks: codex, source: func(key []string) Source {
		return Source{Layer: LayerProject, File: path, Line: w.line(key)}
	}}, warnings, nil
}

// envLayer reads the environment variables that set config keys.
func envLayer(env func(string) string) layer {
	t := tree{}
	names := map[string]string{}
	if v := env("DOCKET_MODEL"); v != "" {
		t["model"] = v
		names["model"] = "$DOCKET_MODEL"
	}
	if v := env("OPENAI_BASE_URL"); v != "" {
		merge(t, setPath([]string{"model_providers", ProviderOpenAI, "base_url"}, v), nil, func([]string) {})
		names[joinKey([]string{"model_providers", ProviderOpenAI, "base_url"})] = "$OPENAI_BASE_URL"
	}
	return layer{tree: t, where: where{source: "environment"}, source: func(key []string) Source {
		return Source{Layer: LayerEnv, Name: names[joinKey(key)]}
	}}
}

// overrideLayer parses and type-checks one -c KEY=VALUE.
func overrideLayer(text string) (layer, error) {
	o, err := ParseOverride(text)
	if err != nil {
		return layer{}, err
	}
	name := "-c " + text
	t := setPath(o.Key, o.Value)
	if err := strictCheck(t, name); err != nil {
		return layer{}, err
	}
	src := Source{Layer: LayerOverride, Name: name}
	return layer{tree: t, where: where{source: name}, source: func([]string) Source { return src }}, nil
}

// flagLayer turns the flags that were given into one layer per flag, so
// each error and source names its flag.
func flagLayer(f Flags) []layer {
	var out []layer
	add := func(flag string, t tree) {
		src := Source{Layer: LayerFlag, Name: flag}
		out = append(out, layer{tree: t, where: where{source: flag}, source: func([]string) Source { return src }})
	}
	if f.Model != nil {
		add("--model", tree{"model": *f.Model})
	}
	if f.ApprovalPolicy != nil {
		add("--ask-for-approval", tree{"approval_policy": *f.ApprovalPolicy})
	} else if f.ExecApproval != nil {
		add("exec (as codex exec; -a chooses another policy)", tree{"approval_policy": *f.ExecApproval})
	}
	if f.SandboxMode != nil {
		add("--sandbox", tree{"sandbox_mode": *f.SandboxMode})
	}
	if f.Permissions != nil {
		add("--permissions", tree{"default_permissions": *f.Permissions})
	}
	if f.ModelScript != nil {
		add("--model-script", tree{"model_provider": ProviderScript, "model_script": *f.ModelScript})
	}
	return out
}

// strictCheck decodes a layer's tree into the schema, rejecting unknown
// keys and wrongly typed values.
func strictCheck(t tree, source string) error {
	b, err := toml.Marshal(t)
	if err != nil {
		return &Error{Source: source, Msg: err.Error(), Err: err}
	}
	var c Config
	err = toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields().Decode(&c)
	if err == nil {
		return nil
	}
	e := fileDecodeError(source, err)
	e.Line = 0
	return e
}

// firstLine is the first line of the file that writes key or a key under it.
func firstLine(lines map[string]int, key string) int {
	first := 0
	for k, l := range lines {
		if (k == key || strings.HasPrefix(k, key+".")) && (first == 0 || l < first) {
			first = l
		}
	}
	return first
}
