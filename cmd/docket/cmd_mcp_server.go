package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/docket-engine/docket/engine/mcpserve"
	"github.com/spf13/cobra"
)

// mcpTokenEnv names the environment variable that gives mcp-server's
// bearer token.
const mcpTokenEnv = "DOCKET_MCP_TOKEN"

// mcpServerFlags are mcp-server's flags: the configuration flags a
// session's policy comes from, and the HTTP listener's.
type mcpServerFlags struct {
	commonFlags
	skipGitRepoCheck bool
	http, tokenFile  string
	allowNonLoopback bool
}

func newMCPServerCmd(a *app) *cobra.Command {
	f := &mcpServerFlags{}
	c := &cobra.Command{
		Use:   "mcp-server",
		Short: "Serve Docket's tools to an MCP client (stdio, or streamable HTTP with --http), each call journaled and sandboxed",
		Long: `Serve Docket's tools to an MCP client: shell, apply_patch, exec_command and
write_stdin run each call through a Docket session's state machine, decisions,
sandbox and journal; audit reads that session's audit. Each MCP client session
is one Docket session (one journal): docket audit, resume and replay take its id.

Approvals are asked through MCP elicitation when the client supports it;
otherwise the call parks and its result names the session and call to answer
with docket resume SESSION --decisions CALL=approved; the client's next call
then goes on in the same session.

Without --http the server speaks MCP on stdin and stdout. --http HOST:PORT
serves streamable HTTP at /mcp on a loopback address, behind a bearer token:
$` + mcpTokenEnv + ` if set, otherwise a fresh one, written to --token-file
(mode 0600) or else printed on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runMCPServer(c, a, f) },
	}
	fl := c.Flags()
	fl.StringVarP(&f.approval, "ask-for-approval", "a", "", "approval policy: untrusted, on-failure, on-request, never")
	fl.StringVarP(&f.sandbox, "sandbox", "s", "", "sandbox mode: read-only, workspace-write, danger-full-access")
	fl.StringVarP(&f.cd, "cd", "C", "", "workspace root (default: current directory)")
	fl.StringArrayVarP(&f.overrides, "config", "c", nil, "override one config key: KEY=VALUE (VALUE parsed as TOML)")
	fl.StringVarP(&f.profile, "profile", "p", "", "the profile NAME: NAME.config.toml beside config.toml, or [profiles.NAME]")
	fl.StringVar(&f.permissions, "permissions", "", "permission profile: :read-only, :workspace, :danger-full-access or a [permissions.NAME]")
	fl.StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	fl.BoolVar(&f.skipGitRepoCheck, "skip-git-repo-check", false, "serve even when the workspace is not inside a git repository")
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on `HOST:PORT` (loopback only; port 0 picks one) instead of stdio")
	fl.StringVar(&f.tokenFile, "token-file", "", "with --http and no $"+mcpTokenEnv+": write the generated bearer token to `FILE` (mode 0600)")
	fl.BoolVar(&f.allowNonLoopback, "allow-non-loopback", false, "with --http: listen on a non-loopback address (the token then crosses the network in clear text)")
	return c
}

func runMCPServer(c *cobra.Command, a *app, f *mcpServerFlags) error {
	if f.http == "" && (f.tokenFile != "" || f.allowNonLoopback) {
		return usageErrorf("--token-file and --allow-non-loopback apply to --http only")
	}
	if f.http != "" {
		if err := mcpserve.CheckListenAddr(f.http, f.allowNonLoopback); err != nil {
			return usageErrorf("%v", err)
		}
	}
	cfg, err := f.load(c)
	if err != nil {
		return err
	}
	cwd, err := workspace(f.cd)
	if err != nil {
		return err
	}
	if !f.skipGitRepoCheck && !cfg.Trust.Trusted() {
		if err := checkGitRepo(cwd); err != nil {
			return err
		}
	}
	srv, err := mcpserve.New(mcpserve.Options{Opener: &mcpOpener{a: a, cfg: cfg, cwd: cwd}, Version: version})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.http == "" {
		return srv.ServeStdio(ctx, a.stdin, a.stdout)
	}
	token, err := mcpToken(a, f.tokenFile)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("--http %s: %w", f.http, err)}
	}
	fmt.Fprintf(a.stderr, "docket mcp-server: listening on http://%s%s (workspace %s)\n", ln.Addr(), mcpserve.HTTPPath, cwd)
	return srv.ServeHTTP(ctx, ln, token)
}

// mcpToken is the bearer token: $DOCKET_MCP_TOKEN, else a fresh one
// written to file (0600, replacing what was there) or printed on stderr.
func mcpToken(a *app, file string) (string, error) {
	if t := strings.TrimSpace(os.Getenv(mcpTokenEnv)); t != "" {
		if file != "" {
			return "", usageErrorf("--token-file writes a generated token; $%s already gives one", mcpTokenEnv)
		}
		return t, nil
	}
	t, err := mcpserve.NewToken()
	if err != nil {
		return "", err
	}
	if file == "" {
		fmt.Fprintf(a.stderr, "docket mcp-server: bearer token: %s\n", t)
		return t, nil
	}
	// Remove first: an existing file keeps its mode through a truncating
	// open, and a wider one would show the token to others.
	if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", &exitError{code: exitFailed, err: fmt.Errorf("--token-file: %w", err)}
	}
	tf, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", &exitError{code: exitFailed, err: fmt.Errorf("--token-file: %w", err)}
	}
	_, werr := tf.WriteString(t + "\n")
	if err := errors.Join(werr, tf.Close()); err != nil {
		return "", &exitError{code: exitFailed, err: fmt.Errorf("--token-file: %w", err)}
	}
	fmt.Fprintf(a.stderr, "docket mcp-server: bearer token written to %s\n", file)
	return t, nil
}
