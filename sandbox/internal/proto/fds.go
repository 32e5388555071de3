package proto

// The descriptors the parent passes to the helper (exec.Cmd.ExtraFiles in
// this order). The protocol keeps what the helper says before the command
// exists apart from what it says after:
//
//   - SetupFD carries one line, the layers enforced or the setup error. The
//     helper closes it before the command exists (explicitly before the
//     init forks it, or by close-on-exec when the helper becomes it), so
//     the parent's read reaches EOF first and nothing the command does can
//     add to it. Only this pipe can make docket fall back, and only when it
//     says the mount namespace failed.
//   - ExitFD carries how the command ended, from the init that outlives it.
//     Nothing on it can change how docket runs a command; a malformed line
//     is an error for that call.
//   - BinaryFD is the helper binary docket opened (and exec'ed through
//     /proc/self/fd), for the init stage's re-exec, so no rename over the
//     helper's path can swap the program in between.
const (
	SetupFD  = 3
	ExitFD   = 4
	BinaryFD = 5
)

// BinaryExecPath is the path the parent and the first stage exec the
// helper by: its descriptor, at the same number in both.
const BinaryExecPath = "/proc/self/fd/5"

// Helper exit codes for failures before the command runs, following the
// env(1)/timeout(1) convention: 125 the sandbox failed, 126 the command
// could not be executed, 127 it was not found.
const (
	ExitSetup     = 125
	ExitCannotRun = 126
	ExitNotFound  = 127
)

// LayerProtectedPaths names a setup failure on a path of the mount layout
// (a protected path, a pinned directory, a covered socket): unlike
// layers.MountNS it never leads to a weaker namespace setup.
const LayerProtectedPaths = "protected-paths"
