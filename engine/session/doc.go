// Package session opens, resumes and closes Docket sessions for a program
// that embeds Docket: the same state machine, sandbox and journal as the
// docket command line, which is itself built on this package.
//
// A session needs a workspace, a model and an approver:
//
//	s, err := session.Open(ctx, session.Options{
//		Workspace: dir,
//		Model:     m,           // a model.Model: openai.New, script.Load, your own
//		Approver:  myApprover,  // an engine.Approver; nil parks every request
//		Policy:    events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
//	})
//	if err != nil { ... }
//	defer s.Close()
//	res, err := s.Turn(ctx, "fix the failing test")
//
// Everything else has the command line's defaults, and each can be
// replaced through Options: the journal under Docket's home ($DOCKET_HOME,
// else ~/.docket) or another directory, the rules in force there, the
// instructions built from AGENTS.md, the built-in tools, and a runner that
// runs each command under the sandbox on the session's sandbox servers with
// one walk for git directories per session.
//
// A program that runs sandboxed commands must let its own binary serve as
// the sandbox helper: the first thing its main does is
//
//	if code, ok := engine.Helper(os.Args); ok {
//		os.Exit(code)
//	}
//
// (a test binary does the same in TestMain). Docket's lean helper binary,
// docket-sandbox-helper, is used instead when it lies beside the program.
//
// Resume continues a session from its journal: calls a crash interrupted
// are recorded as interrupted, never run again, and a turn that waited for
// an approval asks again (Session.Pending, Session.Continue). The session
// keeps the policy, sandbox plan and rules it was recorded with.
//
// What a session did is read back with package replay/audit, and checked
// in a test with replay/replaytest.
package session
