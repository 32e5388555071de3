package patch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// HelperArg is the argv[1] that makes the docket binary apply a patch
// instead of running its CLI, so that the engine can run the write itself
// under the sandbox.
const HelperArg = "__docket_apply_patch"

// IsHelper reports whether args (os.Args) ask for the apply_patch helper.
func IsHelper(args []string) bool {
	return len(args) >= 2 && args[1] == HelperArg
}

// HelperMain runs the helper: args are [exe, HelperArg, workdir, patchFile],
// patchFile "-" meaning standard input. It parses, verifies and applies the
// patch in workdir, prints the summary to standard output or the error to
// standard error, and returns the exit code: 0 on success, 1 otherwise.
func HelperMain(args []string) int {
	return runHelper(args, os.Stdin, os.Stdout, os.Stderr)
}

func runHelper(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 4 || args[1] != HelperArg {
		fmt.Fprintf(stderr, "apply_patch helper: usage: %s %s WORKDIR PATCHFILE\n", filepath.Base(argOr(args, 0)), HelperArg)
		return 1
	}
	sum, err := applyText(args[2], args[3], stdin)
	if err != nil {
		fmt.Fprintln(stderr, err)
		var nc *notChangedError
		if errors.As(err, &nc) {
			fmt.Fprintln(stderr, "No files were changed.")
		}
		return 1
	}
	if _, err := io.WriteString(stdout, sum.String()); err != nil {
		fmt.Fprintln(stderr, "apply_patch helper: writing the summary:", err)
		return 1
	}
	return 0
}

func applyText(workdir, patchFile string, stdin io.Reader) (Summary, error) {
	var (
		text []byte
		err  error
	)
	if patchFile == "-" {
		text, err = io.ReadAll(stdin)
	} else {
		text, err = os.ReadFile(patchFile)
	}
	if err != nil {
		return Summary{}, fmt.Errorf("apply_patch helper: reading the patch: %w", err)
	}
	if workdir, err = filepath.Abs(workdir); err != nil {
		return Summary{}, fmt.Errorf("apply_patch helper: workdir: %w", err)
	}
	p, err := Parse(string(text))
	if err != nil {
		return Summary{}, err
	}
	r, err := Compute(p, workdir, OSFS{})
	if err != nil {
		return Summary{}, &notChangedError{err}
	}
	return Apply(r)
}

// notChangedError is a patch that failed verification before anything was
// written; the helper tells the model so on a line of its own.
type notChangedError struct{ err error }

func (e *notChangedError) Error() string { return e.err.Error() }
func (e *notChangedError) Unwrap() error { return e.err }

func argOr(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return "docket"
}
