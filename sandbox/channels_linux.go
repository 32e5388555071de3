package sandbox

import (
	"encoding/json"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The descriptors the parent passes to the helper (exec.Cmd.ExtraFiles in
// this order). The protocol keeps what the helper says before the command
// exists apart from what it says after:
//
//   - setupFD carries one line, the layers enforced or the setup error. The
//     helper closes it before the command exists (explicitly before the
//     init forks it, or by close-on-exec when the helper becomes it), so
//     the parent's read reaches EOF first and nothing the command does can
//     add to it. Only this pipe can make docket fall back, and only when it
//     says the mount namespace failed.
//   - exitFD carries how the command ended, from the init that outlives it.
//     Nothing on it can change how docket runs a command; a malformed line
//     is an error for that call.
//   - binaryFD is the helper binary docket opened (and exec'ed through
//     /proc/self/fd), for the init stage's re-exec, so no rename over the
//     helper's path can swap the program in between.
const (
	setupFD  = 3
	exitFD   = 4
	binaryFD = 5
)

// binaryExecPath is the path the parent and the first stage exec the
// helper by: its descriptor, at the same number in both.
const binaryExecPath = "/proc/self/fd/5"

// channels are the helper's ends of the protocol; nil when the helper was
// started by hand without them.
type channels struct {
	setup, exit *os.File
}

// openChannels takes over the inherited descriptors. They are kept from the
// command: the setup pipe is closed before it exists, the others are
// close-on-exec.
func openChannels() channels {
	var ch channels
	if isFifo(setupFD) {
		unix.CloseOnExec(setupFD)
		ch.setup = os.NewFile(setupFD, "setup")
	}
	if isFifo(exitFD) {
		unix.CloseOnExec(exitFD)
		ch.exit = os.NewFile(exitFD, "exit")
	}
	if _, err := unix.FcntlInt(binaryFD, unix.F_GETFD, 0); err == nil {
		unix.CloseOnExec(binaryFD)
	}
	return ch
}

func isFifo(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

// sendSetup writes the one setup line.
func (c channels) sendSetup(l reportLine) { writeLine(c.setup, l) }

// closeSetup closes the setup pipe: from here on nothing the helper or the
// command writes can count as setup.
func (c *channels) closeSetup() {
	if c.setup != nil {
		_ = c.setup.Close() // a pipe write end: the line is already in the pipe, and Linux frees the fd even when close fails
		c.setup = nil
	}
}

// sendExit writes how the command ended (or why it could not be executed).
func (c channels) sendExit(l reportLine) { writeLine(c.exit, l) }

func writeLine(f *os.File, l reportLine) {
	if f == nil {
		return
	}
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	// One write per line keeps lines whole (pipe writes up to PIPE_BUF are atomic).
	_, _ = f.Write(append(b, '\n'))
}

// cloexecFrom marks every descriptor from fd up close-on-exec, so that the
// command gets only 0, 1 and 2 whatever the helper (or docket) inherited.
func cloexecFrom(fd int) error {
	err := unix.CloseRange(uint(fd), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	// Before Linux 5.11: walk the descriptor table.
	entries, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return err
	}
	for _, e := range entries {
		if n, serr := strconv.Atoi(e.Name()); serr == nil && n >= fd {
			unix.CloseOnExec(n)
		}
	}
	return nil
}
