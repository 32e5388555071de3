package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/journal"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// Session states as `docket sessions` shows them: a turn status from the
// journal, or what the file says when the last turn has no end.
const (
	sessionRunning    = "running"    // another process holds the journal
	sessionCrashed    = "crashed"    // the last turn never ended
	sessionUnreadable = "unreadable" // not a journal, or written by a newer docket
)

// previewRunes bounds the message preview in the table and the JSON.
const previewRunes = 72

// sessionSummary is one row of `docket sessions`.
type sessionSummary struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Cwd     string    `json:"cwd"`
	Turns   int       `json:"turns"`
	State   string    `json:"state"`
	Preview string    `json:"preview"`
	Path    string    `json:"path"`
	// Problem says why the journal could not be read in full, if so.
	Problem string `json:"problem,omitempty"`
	// Parent and Agent are set for a subagent: its parent session's id and
	// its name.
	Parent string `json:"parent,omitempty"`
	Agent  string `json:"agent,omitempty"`
}

func newSessionsCmd(a *app) *cobra.Command {
	var home string
	var jsonOut bool
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List sessions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			h, err := resolveHome(home)
			if err != nil {
				return usageErrorf("%v", err)
			}
			files, unreadable, err := journal.List(h)
			if err != nil {
				return err
			}
			warnUnreadable(a.stderr, unreadable)
			rows := make([]sessionSummary, 0, len(files))
			for _, f := range files {
				rows = append(rows, summarizeSession(f))
			}
			rows, depth := treeOrder(rows)
			if jsonOut {
				enc := json.NewEncoder(a.stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			if len(rows) == 0 {
				fmt.Fprintf(a.stderr, "no sessions under %s\n", h)
				return nil
			}
			return printSessions(a.stdout, rows, depth)
		},
	}
	c.Flags().BoolVar(&jsonOut, "json", false, "a JSON array instead of a table")
	c.Flags().StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	return c
}

// summarizeSession reads one journal. It never fails: what cannot be read
// is reported in the row.
func summarizeSession(f journal.SessionFile) sessionSummary {
	s := sessionSummary{ID: f.ID, Path: f.Path, Started: startedFromID(f.ID, f.ModTime)}
	lastTurn, lastStatus := "", ""
	err := journal.Scan(f.Path, 1, func(r events.Record) error {
		switch r.Kind {
		case events.KindSessionStarted, events.KindUserTurn, events.KindModelResponse, events.KindTurnEnded:
		default:
			return nil
		}
		body, err := r.Decode()
		if err != nil {
			return err
		}
		switch b := body.(type) {
		case *events.SessionStarted:
			s.Cwd = b.Cwd
			if b.Parent != nil {
				s.Parent, s.Agent = b.Parent.SessionID, b.Parent.Name
			}
			if b.StartedAt != 0 {
				s.Started = time.Unix(0, b.StartedAt).UTC()
			}
		case *events.UserTurn:
			s.Turns++
			lastTurn, lastStatus = b.TurnID, ""
			s.Preview = b.Text
		case *events.ModelResponse:
			for _, it := range b.Items {
				if it.Type == events.ItemMessage && it.Role != "user" && strings.TrimSpace(it.Text) != "" {
					s.Preview = it.Text
				}
			}
		case *events.TurnEnded:
			if b.TurnID == lastTurn {
				lastStatus = b.Status.String()
			}
		}
		return nil
	})
	s.Preview = preview(s.Preview)
	switch {
	case lastStatus != "":
		s.State = lastStatus
	default:
		s.State = sessionCrashed
	}
	var inUse *journal.InUseError
	var damaged *journal.DamagedError
	var newer *events.NewerVersionError
	switch {
	case err == nil:
	case errors.As(err, &inUse):
		s.State = sessionRunning
	case errors.As(err, &damaged):
		s.Problem = err.Error()
	case errors.Is(err, journal.ErrNotJournal), errors.As(err, &newer):
		s.State, s.Problem = sessionUnreadable, err.Error()
	default:
		s.State, s.Problem = sessionUnreadable, err.Error()
	}
	return s
}

// startedFromID reads the time a UUIDv7 session id carries; other ids fall
// back to the file's modification time.
func startedFromID(id string, mod time.Time) time.Time {
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 {
		return mod.UTC()
	}
	sec, nsec := u.Time().UnixTime()
	return time.Unix(sec, nsec).UTC()
}

// preview makes a message fit one table cell: whitespace runs become one
// space, control characters go, and long text is cut with an ellipsis.
func preview(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := []rune(b.String())
	if len(out) > previewRunes {
		return string(out[:previewRunes-1]) + "…"
	}
	return string(out)
}

func printSessions(w io.Writer, rows []sessionSummary, depth []int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tTURNS\tSTATE\tCWD\tPREVIEW")
	for i, r := range rows {
		state := r.State
		if r.Problem != "" && state != sessionUnreadable {
			state += " (damaged)"
		}
		id, pv := r.ID, r.Preview
		if i < len(depth) && depth[i] > 0 {
			id = strings.Repeat("  ", depth[i]-1) + "└ " + id
		}
		if r.Agent != "" {
			pv = "[" + r.Agent + "] " + pv
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", id, r.Started.Local().Format("2006-01-02 15:04:05"), r.Turns, state, safetext.Line(r.Cwd), safetext.Line(pv))
	}
	return tw.Flush()
}

// warnUnreadable names, on stderr, each session directory a listing had to
// skip, so that a partial list never passes for a whole one.
func warnUnreadable(w io.Writer, unreadable []journal.UnreadableDir) {
	for _, u := range unreadable {
		fmt.Fprintf(w, "docket: warning: %v (its sessions are not listed)\n", u)
	}
}
