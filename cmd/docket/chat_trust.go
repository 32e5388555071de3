package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/docket-engine/docket/events/safetext"
)

// askTrust asks on the terminal, before the UI starts, whether the person
// trusts a folder that is not inside a git repository, as Codex does
// instead of exiting. Yes goes on for this session only: nothing is
// written to the configuration (a [projects] trust_level entry, or
// --skip-git-repo-check, is how to say it for good).
func askTrust(a *app, cwd string) (bool, error) {
	fmt.Fprintf(a.stdout, "%s is not inside a git repository, so there is no history to undo the model's changes with.\r\n"+
		"Do you trust the files in this folder and want to work in it? (this session only) [y/N] ", safetext.Line(cwd))
	line, err := readLine(a.stdin)
	if err != nil {
		return false, fmt.Errorf("reading the answer to the trust question: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	fmt.Fprint(a.stdout, "not trusted; nothing was started\r\n")
	return false, nil
}

// readLine reads one line a byte at a time: a buffered reader would take
// keys typed after it away from the UI that reads the terminal next.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for b.Len() < 256 {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' || buf[0] == '\r' {
				return b.String(), nil
			}
			b.WriteByte(buf[0])
		}
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
	}
	return b.String(), nil
}
