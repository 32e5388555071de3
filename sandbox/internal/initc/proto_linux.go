package initc

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/sandbox/layers"
)

// Args is one init's start, for Spawn.
type Args struct {
	// FDs are moved to 0.. in the init (see Spawn).
	FDs []int
	// Filter is the compiled seccomp program (struct sock_filter array).
	Filter []byte
	// LastCap is /proc/sys/kernel/cap_last_cap: the init drops 0..LastCap.
	LastCap int
	// Securebits are set and locked before the capabilities go.
	Securebits uint64
	// CloneFlags are the namespaces the init gets (CLONE_NEWPID|...).
	CloneFlags int
	// Heap, when not nil, keeps the Go heap's range between spawns so
	// that /proc/self/maps is read again only now and then (see
	// dontfork_linux.go); Spawn uses it under syscall.ForkLock.
	Heap *HeapCache
}

// HeapCache is the Go heap's range as the last spawns found it.
type HeapCache struct {
	r     HeapRange
	spawn int
}

// HeapRange is a part of the address space: [Lo, Hi).
type HeapRange struct{ Lo, Hi uintptr }

// Command is the command an init is given.
type Command struct {
	Path, Cwd string
	Argv, Env []string
	// NCgroup is how many cgroup files come after the four streams.
	NCgroup int
	Rlimits []Rlimit
	// Lifeline has the init kill the namespace when docket's end of the
	// exit pipe closes.
	Lifeline bool
}

// Rlimit is one rlimit the init sets on itself (lowering needs no
// capability), for the command to inherit.
type Rlimit struct {
	Name       string
	Resource   int
	Soft, Hard uint64
}

// The bits of Status.Done (init_linux.h): the cgroup files joined, and
// each rlimit of Command.Rlimits set (StatusRlimit0<<i).
const (
	StatusCgroup  = 1 << 0
	StatusRlimit0 = 1 << 1
)

// Status is the init's one message before its go: Step is the setup step
// that failed (0: none) with its errno, Done what it set.
type Status struct {
	Step, Err int32
	Done      uint32
}

// SendCommand sends an encoded command with its descriptors on the
// control socket (a stream: the descriptors ride on the header).
func SendCommand(ctl int, msg []byte, fds []int) error {
	head, rest := msg[:HeaderSize], msg[HeaderSize:]
	for {
		n, err := unix.SendmsgN(ctl, head, unix.UnixRights(fds...), nil, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sending the command to the init: %w", err)
		}
		head = head[n:]
		break
	}
	rest = append(head, rest...)
	for len(rest) > 0 {
		n, err := unix.Write(ctl, rest)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sending the command to the init: %w", err)
		}
		rest = rest[n:]
	}
	return nil
}

// ReadStatus reads one of the init's status messages; an init that died
// first is an error.
func ReadStatus(fd int) (Status, error) {
	var st Status
	b := make([]byte, 12)
	for got := 0; got < len(b); {
		n, err := unix.Read(fd, b[got:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return st, fmt.Errorf("reading the init's status: %w", err)
		}
		if n == 0 {
			return st, errors.New("the init exited before it was confined")
		}
		got += n
	}
	st.Step = int32(binary.NativeEndian.Uint32(b[0:4]))
	st.Err = int32(binary.NativeEndian.Uint32(b[4:8]))
	st.Done = binary.NativeEndian.Uint32(b[8:12])
	return st, nil
}

// StepName names a failed step of the init's setup.
func StepName(step int32) string {
	names := map[int32]string{1: "descriptors", 2: "mounting /proc", 3: "dropping capabilities", 4: "entering the working directory",
		5: "no_new_privs", 6: "landlock", 7: "seccomp", 8: "checking the confinement", 9: "signals", 10: "receiving the command"}
	if n, ok := names[step]; ok {
		return n
	}
	return "init"
}

// StepLayer is the layer a failed step of the init's setup could not give.
func StepLayer(step int32) string {
	switch step {
	case 2:
		return layers.PIDNS
	case 3, 8:
		return layers.Caps
	case 4:
		return "cwd"
	case 6:
		return layers.Landlock
	case 7:
		return layers.Seccomp
	}
	return "init"
}

// Reap waits for the init and returns its raw wait status; -1 when it
// cannot be waited for.
func Reap(pid int) int {
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1
		}
		return int(ws)
	}
}
