package confine

import (
	"encoding/json"
	"os"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"golang.org/x/sys/unix"
)

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
	if isFifo(proto.SetupFD) {
		unix.CloseOnExec(proto.SetupFD)
		ch.setup = os.NewFile(proto.SetupFD, "setup")
	}
	if isFifo(proto.ExitFD) {
		unix.CloseOnExec(proto.ExitFD)
		ch.exit = os.NewFile(proto.ExitFD, "exit")
	}
	if _, err := unix.FcntlInt(proto.BinaryFD, unix.F_GETFD, 0); err == nil {
		unix.CloseOnExec(proto.BinaryFD)
	}
	return ch
}

func isFifo(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

// sendSetup writes the one setup line.
func (c channels) sendSetup(l proto.ReportLine) { writeLine(c.setup, l) }

// closeSetup closes the setup pipe: from here on nothing the helper or the
// command writes can count as setup.
func (c *channels) closeSetup() {
	if c.setup != nil {
		_ = c.setup.Close() // a pipe write end: the line is already in the pipe, and Linux frees the fd even when close fails
		c.setup = nil
	}
}

// sendExit writes how the command ended (or why it could not be executed).
func (c channels) sendExit(l proto.ReportLine) { writeLine(c.exit, l) }

func writeLine(f *os.File, l proto.ReportLine) {
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
