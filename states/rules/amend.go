package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// DefaultFile is the file amendments go to, relative to $DOCKET_HOME.
const DefaultFile = "rules/default.rules"

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

// AppendRule returns what appending the rule line text to a rules file
// holding content takes: the bytes to append (a newline first when content
// lacks a final one), the 1-based line the rule then has, and whether it is
// new. A line already present (ignoring trailing blanks) is found, not
// added. The caller does the file I/O (engine/rulesfile, under a lock).
func AppendRule(content []byte, text string) (add []byte, line int, written bool) {
	lines := strings.Split(string(content), "\n")
	for i, l := range lines {
		if strings.TrimRight(l, " \t\r") == text {
			return nil, i + 1, false
		}
	}
	if len(content) > 0 && content[len(content)-1] != '\n' {
		add = append(add, '\n')
	}
	add = append(add, text...)
	add = append(add, '\n')
	switch {
	case len(content) == 0:
		line = 1
	case content[len(content)-1] == '\n':
		line = len(lines) // Split left an empty last element
	default:
		line = len(lines) + 1
	}
	return add, line, true
}

// DefaultRulesFile is the file amendments go to for a given $DOCKET_HOME.
func DefaultRulesFile(home string) string { return filepath.Join(home, DefaultFile) }
