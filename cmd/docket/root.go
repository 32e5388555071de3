package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/docket-engine/docket/states/policy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes, as docs/cli.md fixes them.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
	exitParked = 3
)

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a usage or configuration error (exit 2).
func usageErrorf(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// app holds what every command shares: the standard streams.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// newRootCmd builds the command tree for args. `docket sandbox` gets the
// root and its own command only: it is one process per call, and building
// the other fifteen commands and their flags is start-up it never uses.
func newRootCmd(a *app, args []string) *cobra.Command {
	chat := &chatFlags{}
	root := &cobra.Command{
		Use:           "docket [flags] [PROMPT]",
		Short:         "Docket runs a coding agent's tool calls under a journaled state machine",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Suggestions come from usageLine, on one line.
		DisableSuggestions: true,
		Args:               rootArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if v, _ := c.Flags().GetBool("version"); v {
				buildVersion().write(a.stdout)
				return nil
			}
			// docket alone, with chat's flags (-m, -a, ...) or a prompt, is
			// docket chat, as codex is Codex's interactive UI; without a
			// terminal chat is exec. docket alone outside a terminal
			// prints the help.
			if len(args) == 0 && c.Flags().NFlag() == 0 && !interactiveTerminal(a) {
				return c.Help()
			}
			return runChat(c, a, chat, args)
		},
	}
	chat.registerOn(root.Flags())
	root.Flags().StringVar(&chat.resume, "resume", "", "open the UI on a recorded session (an id, a unique prefix, or last)")
	// -V as Codex spells it; cobra's own --version would take -v and probe
	// the kernel on every start, so this flag is ours.
	root.Flags().BoolP("version", "V", false, "print the version, commit, Go version and Landlock ABI")
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: flagError(c, err)}
	})
	if len(args) > 0 && args[0] == "sandbox" {
		root.AddCommand(newSandboxCmd(a))
		return root
	}
	root.AddCommand(
		newExecCmd(a),
		newChatCmd(a),
		newResumeCmd(a),
		newSessionsCmd(a),
		newReplayCmd(a),
		newAuditCmd(a),
		newExportCmd(a),
		newSandboxCmd(a),
		newRulesCmd(a),
		newFSMCmd(a),
		newMCPCmd(a),
		newMCPServerCmd(a),
		newLoginCmd(a),
		newLogoutCmd(a),
		newAgentsCmd(a),
		newImportCodexCmd(a),
		newHooksCmd(a),
	)
	return root
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runApp(context.Background(), &app{stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

// runApp runs one command line for a and returns its exit code, having
// said on a.stderr what went wrong.
func runApp(ctx context.Context, a *app, args []string) int {
	stderr := a.stderr
	root := newRootCmd(a, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "docket:", ee.err)
		}
		return ee.code
	}
	if isUsageError(err) {
		fmt.Fprintln(stderr, "docket:", usageLine(root, err))
		return exitUsage
	}
	fmt.Fprintln(stderr, "docket:", err)
	return exitFailed
}

// Compiled when a usage error needs them, not at every start.
var (
	unknownCommandRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^unknown command "([^"]*)" for "([^"]*)"`)
	})
	unknownFlagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown flag: --([^ =]+)`) })
)

// usageLine turns cobra's usage errors into one line; an unknown command
// gets the nearest command's name as a suggestion.
func usageLine(root *cobra.Command, err error) string {
	msg := err.Error()
	m := unknownCommandRE().FindStringSubmatch(msg)
	if m == nil {
		first, _, _ := strings.Cut(msg, "\n")
		return first
	}
	parent := root
	if fields := strings.Fields(m[2]); len(fields) > 1 {
		if c, _, err := root.Find(fields[1:]); err == nil {
			parent = c
		}
	}
	var names []string
	for _, c := range parent.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
			names = append(names, c.Aliases...)
		}
	}
	line := fmt.Sprintf("unknown command %q for %q", m[1], m[2])
	if s := policy.Nearest(m[1], names); s != "" {
		return line + fmt.Sprintf("; did you mean %q?", s)
	}
	if len(names) > 0 {
		line += " (commands: " + strings.Join(names, ", ") + ")"
	}
	return line
}

// flagError names the command an unknown flag was given to and suggests
// the nearest flag it has.
func flagError(c *cobra.Command, err error) error {
	m := unknownFlagRE().FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	msg := fmt.Sprintf("unknown flag --%s for %q", m[1], c.CommandPath())
	if s := policy.Nearest(m[1], names); s != "" {
		msg += fmt.Sprintf("; did you mean --%s?", s)
	}
	return errors.New(msg)
}

// rootArgs takes one prompt, as codex does. A single word spelt like a
// command (lower-case letters, digits, hyphens) is taken for the mistyped
// command it most likely is, not for a prompt that would start a session:
// `docket chat WORD` sends such a word.
func rootArgs(c *cobra.Command, args []string) error {
	if len(args) >= 1 && commandLike().MatchString(args[0]) {
		return fmt.Errorf("unknown command %q for %q (a one-word prompt: docket chat %s)", args[0], c.CommandPath(), args[0])
	}
	if len(args) > 1 {
		return fmt.Errorf("accepts at most 1 arg(s), received %d: quote the prompt", len(args))
	}
	return nil
}

var commandLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*$`) })

// isUsageError recognises cobra's own argument and command errors.
func isUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
