// Package noquery keeps Bubble Tea from asking the terminal for its
// background colour while the program starts.
//
// Bubble Tea v1's package init calls lipgloss.HasDarkBackground(), which
// makes termenv write an OSC 11 query and a cursor position query to a
// terminal stdout and wait up to five seconds for the answers, reading
// the terminal's input meanwhile. Every docket command started on a
// terminal paid the round trip; on a terminal that answers neither, the
// screen stayed blank for five seconds and the keys typed meanwhile were
// eaten; and a late answer could land in the chat input. Docket's styles
// use no adaptive colours, so the answer is never needed.
//
// termenv skips the query when CI is set. This package, which imports
// nothing but os, sets it in its init: Go initialises packages in import
// path order among those whose imports are ready, and this one's path
// sorts before termenv's (github.com/muesli/termenv), which Bubble Tea
// needs, so it runs before Bubble Tea's init. main calls Restore first
// thing, so nothing else (children, colour detection) sees the variable.
package noquery

import "os"

// ci is CI's value before init, and whether it was set.
type ci struct {
	value string
	set   bool
}

// before is written once, by init, and read by Restore.
var before ci

func init() {
	v, ok := os.LookupEnv("CI")
	before = ci{value: v, set: ok}
	// Only when stdout may be a terminal (termenv asks nothing otherwise),
	// so that a process whose main never runs (a test binary) keeps its
	// environment as it was.
	if (!ok || v == "") && maybeTerminal(os.Stdout) {
		_ = os.Setenv("CI", "docket-start-up")
	}
}

// maybeTerminal reports whether f is a character device other than
// /dev/null: a terminal, or something rare enough that skipping the
// colour query there costs nothing. It keeps this package's imports to os
// alone, which is what makes it initialise before termenv.
func maybeTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// Restore puts CI back as it was before the program started.
func Restore() {
	if before.set {
		_ = os.Setenv("CI", before.value)
		return
	}
	_ = os.Unsetenv("CI")
}
