package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/docket-engine/docket/cmd/docket/internal/render"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/journal"
)

// pickerLimit bounds the sessions the picker and the error list show.
const pickerLimit = 20

// errFound stops a journal scan once the session's cwd is known.
var errFound = errors.New("found")

// sessionCwd reads the workspace a session was started in from its first
// record (session_started); "" when it cannot be read.
func sessionCwd(path string) string {
	cwd := ""
	_ = journal.Scan(path, 1, func(r events.Record) error {
		if r.Kind == events.KindSessionStarted {
			if b, err := r.Decode(); err == nil {
				if ss, ok := b.(*events.SessionStarted); ok {
					cwd = ss.Cwd
				}
			}
		}
		return errFound
	})
	return cwd
}

// journalKind says what the journal at path holds: a session a user
// started, a subagent's (resumed with its parent, never on its own), or
// no record at all (a crash inside its creation: a session that never
// began, whose resume says nothing ran, or a subagent's child whose
// parent remakes it).
type journalKind int

const (
	usersJournal journalKind = iota
	childJournal
	emptyJournal
)

func kindOf(path string) journalKind {
	kind := emptyJournal
	_ = journal.Scan(path, 1, func(r events.Record) error {
		kind = usersJournal
		if r.Kind == events.KindSessionStarted {
			if b, err := r.Decode(); err == nil {
				if ss, ok := b.(*events.SessionStarted); ok && ss.Parent != nil {
					kind = childJournal
				}
			}
		}
		return errFound
	})
	return kind
}

// chooseSession picks the session to resume when no SESSION was given:
// --last takes the newest of this project (or of all with --all); else a
// terminal gets a numbered list, and anything else an error naming the
// candidates.
func chooseSession(a *app, home, project string, r resumeFlags) (journal.SessionFile, error) {
	files, unreadable, err := journal.List(home)
	if err != nil {
		return journal.SessionFile{}, err
	}
	warnUnreadable(a.stderr, unreadable)
	where := "for " + project
	if r.all {
		where = "in any project"
	}
	inProject := func(f journal.SessionFile) bool { return r.all || sessionCwd(f.Path) == project }
	var cands []journal.SessionFile
	if r.last {
		// With --all, a journal a crash left empty is taken when no
		// session began (its resume says nothing ran).
		if f, ok := newestSession(files, inProject, r.all); ok {
			return f, nil
		}
	} else {
		for _, f := range files {
			if kindOf(f.Path) == childJournal {
				continue // resumed with its parent, never on its own
			}
			if inProject(f) {
				if cands = append(cands, f); len(cands) == pickerLimit {
					break
				}
			}
		}
	}
	if len(cands) == 0 {
		hint := ""
		if !r.all && len(files) > 0 {
			hint = fmt.Sprintf("; %d sessions of other projects: --all considers them, docket sessions lists them", len(files))
		}
		return journal.SessionFile{}, usageErrorf("no session %s under %s%s", where, home, hint)
	}
	rows := make([]sessionSummary, len(cands))
	for i, f := range cands {
		rows[i] = summarizeSession(f)
	}
	in, ok := a.stdin.(*os.File)
	if !ok || !render.IsTerminal(in) {
		var b strings.Builder
		fmt.Fprintf(&b, "resume needs SESSION or --last when there is no terminal to pick on; recent sessions %s:\n", where)
		listSessions(&b, rows)
		b.WriteString("  then: docket resume ID [PROMPT]")
		return journal.SessionFile{}, usageErrorf("%s", b.String())
	}
	fmt.Fprintf(a.stderr, "Recent sessions %s:\n", where)
	listSessions(a.stderr, rows)
	n, err := askNumber(in, a.stderr, len(rows))
	if err != nil {
		return journal.SessionFile{}, err
	}
	return cands[n-1], nil
}

// listSessions writes one numbered line a session.
func listSessions(w io.Writer, rows []sessionSummary) {
	for i, r := range rows {
		fmt.Fprintf(w, "  %2d  %s  %s  %-9s  %s\n", i+1, r.ID, r.Started.Local().Format("2006-01-02 15:04"), r.State, safetext.Line(r.Preview))
	}
}

// askNumber reads a choice between 1 and n; an empty answer or q cancels.
func askNumber(in io.Reader, out io.Writer, n int) (int, error) {
	br := bufio.NewReader(in)
	for {
		fmt.Fprintf(out, "Resume which session? [1-%d, q to cancel] ", n)
		line, err := br.ReadString('\n')
		line = strings.TrimSpace(line)
		if k, cerr := strconv.Atoi(line); cerr == nil && k >= 1 && k <= n {
			return k, nil
		}
		if line == "" || line == "q" || err != nil {
			return 0, &exitError{code: exitUsage, err: errors.New("no session chosen")}
		}
		fmt.Fprintf(out, "%q is not a number between 1 and %d\n", line, n)
	}
}
