package rulesfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/states/rules"
)

// Amendment describes one saved (or already present) allow rule.
type Amendment struct {
	File    string // the rules file
	Line    int    // 1-based line of the rule in File
	Text    string // the rule line, without newline
	Written bool   // false when the same line was already there
}

// Amend appends an allow rule for pattern to $DOCKET_HOME/rules/default.rules
// (home is $DOCKET_HOME) unless the same line is already there. It refuses
// over-broad prefixes with an error wrapping rules.ErrOverBroad.
func Amend(home string, pattern []string) (line string, written bool, err error) {
	a, err := AmendFile(rules.DefaultRulesFile(home), pattern)
	return a.Text, a.Written, err
}

// AmendFile is Amend for an explicit rules file. The read-check-append runs
// under an exclusive flock on the file, so concurrent processes neither lose
// nor duplicate lines; what to append is rules.AppendRule's call.
func AmendFile(file string, pattern []string) (Amendment, error) {
	a := Amendment{File: file}
	if rules.OverBroad(pattern) {
		return a, &rules.OverBroadError{Pattern: append([]string(nil), pattern...)}
	}
	text, err := rules.FormatAllowRule(pattern)
	if err != nil {
		return a, fmt.Errorf("amend %s: %w", file, err)
	}
	a.Text = text
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return a, fmt.Errorf("amend %s: create directory: %w", file, err)
	}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return a, fmt.Errorf("amend %s: open: %w", file, err)
	}
	// What is written is synced before returning; a failed close loses
	// nothing, and closing releases the lock either way.
	defer func() { _ = f.Close() }()
	if err := flock(f); err != nil {
		return a, fmt.Errorf("amend %s: lock: %w", file, err)
	}
	content, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return a, fmt.Errorf("amend %s: read: %w", file, err)
	}
	add, line, written := rules.AppendRule(content, text)
	a.Line = line
	if !written {
		return a, nil
	}
	if _, err := f.Write(add); err != nil {
		return a, fmt.Errorf("amend %s: write: %w", file, err)
	}
	if err := f.Sync(); err != nil {
		return a, fmt.Errorf("amend %s: sync: %w", file, err)
	}
	a.Written = true
	return a, nil
}

func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
