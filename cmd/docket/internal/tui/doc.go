// Package tui is Docket's interactive terminal UI (docket chat): a Bubble
// Tea program over the same engine and journal as exec. The engine talks to
// it through two bridges, an engine.Observer that turns notices into
// messages and an engine.Approver that shows approval requests as an
// overlay; the session itself (turns, policy changes, new and resumed
// sessions, the audit) sits behind the Backend interface, implemented by
// cmd/docket. Nothing here writes the journal or decides anything: what
// the UI shows is display, and every answer a person gives goes through
// the engine, which journals it.
//
// The UI is inline, as Codex's is: finished blocks (prompts, answers, tool
// calls) are printed into the terminal's own scrollback, and only the live
// part (the turn in progress, the approval overlay, the input and the
// status line) is redrawn, so a keystroke costs the same after a thousand
// turns as after one. Pagers (/diff, /audit) use the alternate screen.
package tui
