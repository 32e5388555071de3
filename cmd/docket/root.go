package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes, as CLI.md fixes them.
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

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "docket",
		Short:         "Docket runs a coding agent's tool calls under a journaled state machine",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: err}
	})
	root.AddCommand(
		newExecCmd(a),
		newResumeCmd(a),
		newSessionsCmd(a),
		newReplayCmd(a),
		newAuditCmd(a),
		newSandboxCmd(a),
		newRulesCmd(a),
		newFSMCmd(a),
		newMCPCmd(a),
		newLoginCmd(a),
		newLogoutCmd(a),
	)
	return root
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRootCmd(a)
	root.SetArgs(args)
	err := root.Execute()
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
	fmt.Fprintln(stderr, "docket:", err)
	if isUsageError(err) {
		return exitUsage
	}
	return exitFailed
}

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

// notYet is the placeholder for a command whose issue has not landed.
func notYet(name string) *cobra.Command {
	return &cobra.Command{
		Use:   name,
		Short: name + " (not yet implemented)",
		RunE: func(c *cobra.Command, args []string) error {
			return &exitError{code: exitFailed, err: fmt.Errorf("%s: not yet implemented", name)}
		},
	}
}
