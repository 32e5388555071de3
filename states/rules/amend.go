package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// DefaultFile is the file amendments go to, relative to $DOCKET_HOME.
const DefaultFile = "rules/default.rules"

// Amendment describes one saved (or already present) allow rule.
type Amendment struct {
	File    string // the rules file
	Line    int    // 1-based line of the rule in File
	Text    string // the rule line, without newline
	Written bool   // false when the same line was already there
}

// FormatAllowRule renders the one-line allow rule for a prefix, as Codex
// writes it: prefix_rule(pattern=["a", "b"], decision="allow").
func FormatAllowRule(pattern []string) (string, error) {
	if len(pattern) == 0 {
		return "", errors.New("prefix rule needs at least one token")
	}
	toks := make([]string, len(pattern))
	for i, t := range pattern {
		if !utf8.ValidString(t) {
			return "", fmt.Errorf("token %d of the prefix is not valid UTF-8", i)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(t); err != nil {
			return "", fmt.Errorf("encode token %d: %w", i, err)
		}
		toks[i] = strings.TrimSuffix(buf.String(), "\n")
	}
	return `prefix_rule(pattern=[` + strings.Join(toks, ", ") + `], decision="allow")`, nil
}

// Amend appends an allow rule for pattern to $DOCKET_HOME/rules/default.rules
// (home is $DOCKET_HOME) unless the same line is already there. It refuses
// over-broad prefixes with an error wrapping ErrOverBroad.
func Amend(home string, pattern []string) (line string, written bool, err error) {
	a, err := AmendFile(DefaultRulesFile(home), pattern)
	return a.Text, a.Written, err
}

// AmendFile is Amend for an explicit rules file. The read-check-append runs
// under an exclusive flock on the file, so concurrent processes neither lose
// nor duplicate lines.
func AmendFile(file string, pattern []string) (Amendment, error) {
	a := Amendment{File: file}
	if OverBroad(pattern) {
		return a, &OverBroadError{Pattern: append([]string(nil), pattern...)}
	}
	text, err := FormatAllowRule(pattern)
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
	// Closing the file releases the lock.
	content, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return a, fmt.Errorf("amend %s: read: %w", file, err)
	}
	lines := strings.Split(string(content), "\n")
	for i, l := range lines {
		if strings.TrimRight(l, " \t\r") == text {
			a.Line = i + 1
			return a, nil
		}
	}
	var out []byte
	if len(content) > 0 && content[len(content)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, text...)
	out = append(out, '\n')
	if _, err := f.Write(out); err != nil {
		return a, fmt.Errorf("amend %s: write: %w", file, err)
	}
	if err := f.Sync(); err != nil {
		return a, fmt.Errorf("amend %s: sync: %w", file, err)
	}
	a.Written = true
	switch {
	case len(content) == 0:
		a.Line = 1
	case content[len(content)-1] == '\n':
		a.Line = len(lines) // Split left an empty last element
	default:
		a.Line = len(lines) + 1
	}
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

// DefaultRulesFile is the file amendments go to for a given $DOCKET_HOME.
func DefaultRulesFile(home string) string { return filepath.Join(home, DefaultFile) }
