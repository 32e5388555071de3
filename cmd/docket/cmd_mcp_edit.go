package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/spf13/cobra"
)

// configPath is $DOCKET_HOME/config.toml for --home.
func configPath(home string) (string, error) {
	h, err := resolveHome(home)
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	return filepath.Join(h, "config.toml"), nil
}

// rewriteConfig applies edit to the config file and checks that a config
// which loaded before still loads after; if not, the old file is put back.
// It holds the config's edit lock throughout, as an "allow always" does.
func rewriteConfig(home string, edit func(text string) (string, error)) (string, error) {
	path, err := configPath(home)
	if err != nil {
		return "", err
	}
	unlock, err := config.LockFile(path)
	if err != nil {
		return "", err
	}
	defer unlock()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	loaded := func() error {
		_, err := config.Load(config.LoadOptions{Home: filepath.Dir(path), Env: os.Getenv})
		return err
	}
	okBefore := loaded() == nil
	text, err := edit(string(old))
	if err != nil {
		return "", usageErrorf("%s: %v", path, err)
	}
	if text == string(old) {
		return path, nil
	}
	if err := config.WriteFileAtomic(path, text); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if okBefore {
		if lerr := loaded(); lerr != nil {
			if len(old) == 0 {
				err = os.Remove(path)
			} else {
				err = config.WriteFileAtomic(path, string(old))
			}
			return "", usageErrorf("the new server does not load (%v); %s is unchanged%s", lerr, path, errSuffix(err))
		}
	}
	return path, nil
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return " (restoring it failed: " + err.Error() + ")"
}

func newMCPAddCmd(a *app) *cobra.Command {
	var home, url, bearer string
	var env []string
	c := &cobra.Command{
		Use:   "add NAME [--env KEY=VALUE]... -- COMMAND [ARG...] | add NAME --url URL [--bearer-token-env-var VAR]",
		Short: "Add (or replace) an MCP server in $DOCKET_HOME/config.toml",
		Long: `Add an MCP server to $DOCKET_HOME/config.toml as [mcp_servers.NAME], or
replace the one of that name. A stdio server is the command after --; a
streamable HTTP server is --url. The rest of the file, comments included,
is left as it was.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name := args[0]
			if !mcpServerName().MatchString(name) {
				return usageErrorf("mcp add: server name %q: use letters, digits, - and _", name)
			}
			srv := newServer{url: url, bearerTokenEnvVar: bearer}
			switch {
			case url != "" && len(args) > 1:
				return usageErrorf("mcp add: give --url or a command after --, not both")
			case url == "" && len(args) < 2:
				return usageErrorf("mcp add: give the server's command after -- (docket mcp add %s -- npx -y some-server), or --url", name)
			case url == "" && bearer != "":
				return usageErrorf("mcp add: --bearer-token-env-var goes with --url")
			case url == "":
				srv.command, srv.args = args[1], args[2:]
			}
			for _, kv := range env {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usageErrorf("mcp add: --env %q: want KEY=VALUE", kv)
				}
				if srv.env == nil {
					srv.env = map[string]string{}
				}
				srv.env[k] = v
			}
			if url != "" && len(srv.env) > 0 {
				return usageErrorf("mcp add: --env is for stdio servers (the command's environment)")
			}
			replaced := false
			path, err := rewriteConfig(home, func(text string) (string, error) {
				out, found, err := editServer(text, name, &srv)
				replaced = found
				return out, err
			})
			if err != nil {
				return err
			}
			verb := "Added"
			if replaced {
				verb = "Replaced"
			}
			fmt.Fprintf(a.stdout, "%s MCP server %q in %s\n", verb, name, path)
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	fl.StringArrayVar(&env, "env", nil, "KEY=VALUE for the server's environment (repeatable)")
	fl.StringVar(&url, "url", "", "a streamable HTTP server's URL")
	fl.StringVar(&bearer, "bearer-token-env-var", "", "environment variable holding the HTTP server's bearer token")
	return c
}

func newMCPRemoveCmd(a *app) *cobra.Command {
	var home string
	c := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server from $DOCKET_HOME/config.toml",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name := args[0]
			removed := false
			path, err := rewriteConfig(home, func(text string) (string, error) {
				out, found, err := editServer(text, name, nil)
				removed = found
				return out, err
			})
			if err != nil {
				return err
			}
			if !removed {
				return usageErrorf("mcp remove: no MCP server %q in %s", name, path)
			}
			fmt.Fprintf(a.stdout, "Removed MCP server %q from %s\n", name, path)
			return nil
		},
	}
	c.Flags().StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	return c
}

// mcpServerView is `docket mcp get --json`: the server's configuration,
// environment values masked.
type mcpServerView struct {
	Name              string            `json:"name"`
	Transport         string            `json:"transport"`
	Enabled           bool              `json:"enabled"`
	Command           string            `json:"command,omitempty"`
	Args              []string          `json:"args,omitempty"`
	Cwd               string            `json:"cwd,omitempty"`
	Env               map[string]string `json:"env,omitempty"`
	URL               string            `json:"url,omitempty"`
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
	EnabledTools      []string          `json:"enabled_tools,omitempty"`
	DisabledTools     []string          `json:"disabled_tools,omitempty"`
	Approval          string            `json:"approval,omitempty"`
	Sandbox           bool              `json:"sandbox"`
	StartupTimeoutSec float64           `json:"startup_timeout_sec,omitempty"`
	ToolTimeoutSec    float64           `json:"tool_timeout_sec,omitempty"`
}

func newMCPGetCmd(a *app) *cobra.Command {
	var f commonFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "get NAME [--json]",
		Short: "Show one configured MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := f.load(c)
			if err != nil {
				return err
			}
			s, ok := cfg.MCPServers[args[0]]
			if !ok {
				names := make([]string, 0, len(cfg.MCPServers))
				for n := range cfg.MCPServers {
					names = append(names, n)
				}
				sort.Strings(names)
				return usageErrorf("mcp get: no MCP server %q (configured: %s)", args[0], orNone(names))
			}
			v := serverView(args[0], s)
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			printServer(a, v)
			return nil
		},
	}
	fl := c.Flags()
	fl.BoolVar(&asJSON, "json", false, "JSON output")
	fl.StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	fl.StringVarP(&f.profile, "profile", "p", "", "use [profiles.NAME] from config")
	fl.StringArrayVarP(&f.overrides, "config", "c", nil, "override one config key: KEY=VALUE")
	return c
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func serverView(name string, s config.MCPServer) mcpServerView {
	v := mcpServerView{Name: name, Transport: "stdio", Enabled: s.Enabled == nil || *s.Enabled, Command: s.Command, Args: s.Args,
		Cwd: s.Cwd, URL: s.URL, BearerTokenEnvVar: s.BearerTokenEnvVar, EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools,
		Approval: s.Approval, Sandbox: s.Sandbox, StartupTimeoutSec: float64(s.StartupTimeoutSec), ToolTimeoutSec: float64(s.ToolTimeoutSec)}
	if s.URL != "" {
		v.Transport = "streamable_http"
	}
	if len(s.Env) > 0 {
		v.Env = map[string]string{}
		for k := range s.Env {
			v.Env[k] = "*****"
		}
	}
	return v
}

func printServer(a *app, v mcpServerView) {
	p := func(k, val string) {
		if val == "" {
			val = "-"
		}
		fmt.Fprintf(a.stdout, "  %-13s %s\n", k+":", val)
	}
	fmt.Fprintln(a.stdout, v.Name)
	p("enabled", fmt.Sprint(v.Enabled))
	p("transport", v.Transport)
	if v.URL != "" {
		p("url", v.URL)
		p("bearer token", v.BearerTokenEnvVar)
	} else {
		p("command", v.Command)
		p("args", strings.Join(v.Args, " "))
		p("cwd", v.Cwd)
		keys := make([]string, 0, len(v.Env))
		for k := range v.Env {
			keys = append(keys, k+"=*****")
		}
		sort.Strings(keys)
		p("env", strings.Join(keys, ", "))
		p("sandbox", fmt.Sprint(v.Sandbox))
	}
	p("approval", v.Approval)
	if len(v.EnabledTools) > 0 {
		p("enabled tools", strings.Join(v.EnabledTools, ", "))
	}
	if len(v.DisabledTools) > 0 {
		p("disabled tools", strings.Join(v.DisabledTools, ", "))
	}
	p("remove", "docket mcp remove "+v.Name)
}
