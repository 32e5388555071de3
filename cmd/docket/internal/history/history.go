// Package history is the interactive prompt history: every prompt sent,
// appended to $DOCKET_HOME/history.jsonl (one JSON string a line, so a
// prompt's newlines and control characters cannot break the file, mode
// 0600), bounded in size, with a cursor for the up/down keys.
package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// FileName is the history file's name in Docket's home.
const FileName = "history.jsonl"

// Limits bound the history.
type Limits struct {
	// MaxBytes is the file's size past which the oldest entries are
	// dropped (down to about half of it).
	MaxBytes int64
	// MaxEntryBytes is the longest prompt kept; a longer one is not saved.
	MaxEntryBytes int
}

// DefaultLimits keep 1 MiB of history and prompts up to 64 KiB.
func DefaultLimits() Limits { return Limits{MaxBytes: 1 << 20, MaxEntryBytes: 64 << 10} }

// History is the prompt history of one Docket home.
type History struct {
	path    string
	lim     Limits
	entries []string // oldest first
}

// Open reads the history of home (none yet is an empty history). A line
// that is not a JSON string (a torn write, a foreign edit) is skipped.
func Open(home string, lim Limits) (*History, error) {
	h := &History{path: filepath.Join(home, FileName), lim: lim}
	b, err := os.ReadFile(h.path)
	if errors.Is(err, os.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prompt history: %w", err)
	}
	h.entries = parse(b)
	return h, nil
}

// Path returns the history file's path.
func (h *History) Path() string { return h.path }

func parse(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), len(b)+1)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Entries returns the history, oldest first.
func (h *History) Entries() []string { return append([]string(nil), h.entries...) }

// Add appends a prompt, unless it is blank, too long, or the same as the
// last one. The line is written with one append (O_APPEND), so prompts
// from concurrent sessions interleave whole; past MaxBytes the file is
// rewritten with its newer half, atomically.
func (h *History) Add(prompt string) error {
	if strings.TrimSpace(prompt) == "" || (h.lim.MaxEntryBytes > 0 && len(prompt) > h.lim.MaxEntryBytes) {
		return nil
	}
	if n := len(h.entries); n > 0 && h.entries[n-1] == prompt {
		return nil
	}
	line, err := json.Marshal(prompt)
	if err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	_, werr := f.Write(line)
	info, serr := f.Stat()
	if err := errors.Join(werr, serr, f.Close()); err != nil {
		return fmt.Errorf("prompt history %s: %w", h.path, err)
	}
	h.entries = append(h.entries, prompt)
	if h.lim.MaxBytes > 0 && info.Size() > h.lim.MaxBytes {
		return h.trim()
	}
	return nil
}

// trim rewrites the file with the newest entries that fit in half of
// MaxBytes, through a temporary file renamed over it.
func (h *History) trim() error {
	b, err := os.ReadFile(h.path)
	if err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	all := parse(b)
	var keep [][]byte
	var size int64
	for i := len(all) - 1; i >= 0; i-- {
		line, _ := json.Marshal(all[i])
		if size+int64(len(line))+1 > h.lim.MaxBytes/2 {
			break
		}
		size += int64(len(line)) + 1
		keep = append(keep, line)
	}
	var out bytes.Buffer
	h.entries = h.entries[:0]
	for i := len(keep) - 1; i >= 0; i-- {
		out.Write(keep[i])
		out.WriteByte('\n')
		var s string
		_ = json.Unmarshal(keep[i], &s) // marshalled above
		h.entries = append(h.entries, s)
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".history-*")
	if err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	_, werr := tmp.Write(out.Bytes())
	if err := errors.Join(werr, tmp.Chmod(0o600), tmp.Close()); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("prompt history: %w", err)
	}
	if err := os.Rename(tmp.Name(), h.path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("prompt history: %w", err)
	}
	return nil
}

// Cursor walks the history with the up and down keys, keeping the prompt
// being typed so that going down past the newest entry gives it back.
type Cursor struct {
	entries []string
	pos     int // len(entries) is the draft
	draft   string
}

// Cursor returns a cursor past the newest entry.
func (h *History) Cursor() *Cursor {
	return &Cursor{entries: h.Entries(), pos: len(h.entries)}
}

// Up returns the previous (older) entry; current is what the input holds,
// kept as the draft when leaving it. ok is false at the oldest entry.
func (c *Cursor) Up(current string) (string, bool) {
	if c.pos == 0 {
		return current, false
	}
	if c.pos == len(c.entries) {
		c.draft = current
	}
	c.pos--
	return c.entries[c.pos], true
}

// Down returns the next (newer) entry, or the draft after the newest. ok
// is false when already at the draft.
func (c *Cursor) Down() (string, bool) {
	if c.pos >= len(c.entries) {
		return "", false
	}
	c.pos++
	if c.pos == len(c.entries) {
		return c.draft, true
	}
	return c.entries[c.pos], true
}

// Reset puts the cursor back past the newest entry, adding prompt (the one
// just sent) to what it walks if it is not empty.
func (c *Cursor) Reset(prompt string) {
	if strings.TrimSpace(prompt) != "" && (len(c.entries) == 0 || c.entries[len(c.entries)-1] != prompt) {
		c.entries = append(c.entries, prompt)
	}
	c.pos, c.draft = len(c.entries), ""
}
