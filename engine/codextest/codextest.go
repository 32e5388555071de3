// Package codextest runs Docket against the conformance data taken from
// Codex CLI's own test suites (../shared/conformance/codex beside the
// repository) and scores each vector: it agrees with Codex, or it differs
// in a way docs/codex-differences.md states, or the test fails.
//
// It is a test helper: only tests import it, and it imports nothing of
// Docket's, so the tests of any layer may use it.
package codextest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// DataDir is where the data sits, relative to the module root.
const DataDir = "../shared/conformance/codex"

// DifferencesDoc is the list of documented differences, relative to the
// module root.
const DifferencesDoc = "docs/codex-differences.md"

// DirEnv overrides DataDir, for a work tree that does not sit beside the
// shared folder (a git worktree elsewhere).
const DirEnv = "DOCKET_CODEX_CONFORMANCE"

// maxWalkUp bounds the search for go.mod above a test's directory.
const maxWalkUp = 32

// ModuleRoot returns the directory holding go.mod, searched upwards from the
// test's working directory.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("codextest: %v", err)
	}
	for range maxWalkUp {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	t.Fatalf("codextest: no go.mod above the test directory")
	return ""
}

// Dir returns the conformance data directory. When it is absent the test
// is skipped with a message that says so loudly; CI (.ci/run) refuses to
// run without it, so a skip there cannot pass unnoticed.
func Dir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(ModuleRoot(t), DataDir)
	if env := os.Getenv(DirEnv); env != "" {
		dir = env
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("CODEX CONFORMANCE NOT RUN: %s is absent (%v); it holds the vectors from Codex's test suites "+
			"that Docket must agree with (issue 15). Put the shared folder beside the repository to run them.", dir, err)
	}
	return dir
}

// Path returns the path of a file or folder of the data, skipping as Dir does.
func Path(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Dir(t), filepath.FromSlash(name))
}

// ReadJSON decodes one data file into v; a bad file fails the test with its name.
func ReadJSON(t testing.TB, name string, v any) {
	t.Helper()
	p := Path(t, name)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("codextest: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("codextest: %s: %v", p, err)
	}
}

// Difference is one documented way Docket differs from Codex on one vector.
type Difference struct {
	File string // data file (or fixtures folder) the vector is in
	ID   string // the vector's id in that file
	What string // what Docket does instead
	Why  string // the documented stricter rule
	Line int    // line in docs/codex-differences.md
}

// Differences reads the table of docs/codex-differences.md: every table row
// whose first cell names a data file ("safety_vectors.json", "fixtures/...")
// and whose second cell is a vector id in backquotes.
func Differences(t testing.TB) map[string]Difference {
	t.Helper()
	p := filepath.Join(ModuleRoot(t), DifferencesDoc)
	f, err := os.Open(p)
	if err != nil {
		t.Fatalf("codextest: %v", err)
	}
	defer func() { _ = f.Close() }() // read-only: a close error loses nothing
	out := map[string]Difference{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		row := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(row, "|") || !strings.HasSuffix(row, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(row, "|"), "|")
		if len(cells) != 4 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		file, id := strings.Trim(cells[0], "`"), cells[1]
		if !isDataFile(file) {
			continue
		}
		if len(id) < 3 || id[0] != '`' || id[len(id)-1] != '`' {
			t.Fatalf("%s:%d: vector id %q: write it in backquotes", p, line, id)
		}
		id = strings.Trim(id, "`")
		key := file + "\x00" + id
		if prev, dup := out[key]; dup {
			t.Fatalf("%s:%d: %s %s is listed twice (first at line %d)", p, line, file, id, prev.Line)
		}
		if cells[2] == "" || cells[3] == "" {
			t.Fatalf("%s:%d: %s %s: say what differs and why", p, line, file, id)
		}
		out[key] = Difference{File: file, ID: id, What: cells[2], Why: cells[3], Line: line}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("codextest: %s: %v", p, err)
	}
	return out
}

func isDataFile(s string) bool {
	return strings.HasSuffix(s, ".json") || strings.HasPrefix(s, "fixtures/")
}

// Scorer scores the vectors of one data file and reports the totals when
// the test ends.
type Scorer struct {
	file  string
	total int
	docs  map[string]Difference

	mu       sync.Mutex
	seen     map[string]bool
	agree    int
	differ   int
	unscored int
	unagree  int // unscored vectors that agree anyway
	// elsewhere counts vectors another package's test scores.
	elsewhere int
}

// NewScorer starts scoring file, which holds total vectors. When the test
// ends, if every vector was scored (no -run filter), it fails for every
// documented difference of file that no vector showed (a stale entry); it
// always logs the totals.
func NewScorer(t *testing.T, file string, total int) *Scorer {
	t.Helper()
	all := Differences(t)
	s := &Scorer{file: file, total: total, docs: map[string]Difference{}, seen: map[string]bool{}}
	for _, d := range all {
		if d.File == file {
			s.docs[d.ID] = d
		}
	}
	t.Cleanup(func() { s.finish(t) })
	return s
}

// Check scores one vector: mismatch is "" when Docket agrees with Codex,
// else what differs. A difference must be documented; a documented
// difference that no longer differs fails too, so the list stays true.
func (s *Scorer) Check(t testing.TB, id, mismatch string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[id] {
		t.Errorf("%s: vector id %q scored twice", s.file, id)
	}
	s.seen[id] = true
	d, documented := s.docs[id]
	switch {
	case mismatch == "" && documented:
		t.Errorf("%s %s agrees with Codex now, but %s:%d lists it as a difference; remove that row", s.file, id, DifferencesDoc, d.Line)
		s.agree++
	case mismatch == "":
		s.agree++
	case documented:
		t.Logf("%s %s: documented difference (%s:%d): %s", s.file, id, DifferencesDoc, d.Line, mismatch)
		s.differ++
	default:
		t.Errorf("%s %s disagrees with Codex and %s does not list it: %s", s.file, id, DifferencesDoc, mismatch)
	}
}

// Elsewhere records a vector that another package's test scores (under the
// same file name), so it is neither counted nor reported stale here.
func (s *Scorer) Elsewhere(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[id] = true
	s.elsewhere++
}

// Unscored records a vector the data marks as not scored (another Codex
// version's expectation); it is reported, never a failure.
func (s *Scorer) Unscored(t testing.TB, id, mismatch string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[id] = true
	s.unscored++
	if mismatch == "" {
		s.unagree++
		return
	}
	t.Logf("%s %s (not scored): %s", s.file, id, mismatch)
}

func (s *Scorer) finish(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Skipped() {
		return
	}
	var stale []string
	for id, d := range s.docs {
		if !s.seen[id] {
			stale = append(stale, fmt.Sprintf("%s (line %d)", id, d.Line))
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 && len(s.seen) == s.total {
		t.Errorf("%s lists differences for %s that no vector showed: %s", DifferencesDoc, s.file, strings.Join(stale, ", "))
	}
	scored := len(s.seen) - s.unscored - s.elsewhere
	t.Logf("codex conformance %s: %d vectors here; %d scored: %d agree, %d documented differences, %d failing; %d not scored (%d of them agree)",
		s.file, len(s.seen)-s.elsewhere, scored, s.agree, s.differ, scored-s.agree-s.differ, s.unscored, s.unagree)
}
