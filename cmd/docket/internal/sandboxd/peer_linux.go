package sandboxd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// soPeerPidfd is SO_PEERPIDFD (Linux 6.5): a pidfd of the process that
// connected, which, unlike its pid, cannot come to name another process.
const soPeerPidfd = 77

// CheckPeer refuses a caller that is more confined than the daemon:
// another uid, another mount, PID or user namespace (a docket sandbox has
// its own where the machine allows), or more seccomp filters or
// no_new_privs where the daemon has not (every docket sandbox adds both).
// A sandboxed command that reaches the socket (the network on leaves unix
// sockets reachable) would otherwise ask for a weaker sandbox than its own.
func CheckPeer(sock int) error {
	self, err := Self()
	if err != nil {
		return err
	}
	return self.CheckPeer(sock)
}

// peerNamespaces are the namespaces a caller must share with the daemon.
var peerNamespaces = [3]string{"mnt", "pid", "user"}

// Self reads this process's Identity.
func Self() (*Identity, error) {
	var id Identity
	for i, ns := range peerNamespaces {
		if err := unix.Stat("/proc/self/ns/"+ns, &id.ns[i]); err != nil {
			return nil, fmt.Errorf("own %s namespace: %w", ns, err)
		}
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, fmt.Errorf("own status: %w", err)
	}
	id.status = b
	return &id, nil
}

// CheckPeer is CheckPeer against id.
func (id *Identity) CheckPeer(sock int) error {
	cred, err := unix.GetsockoptUcred(sock, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("uid %d is not the daemon's %d", cred.Uid, os.Getuid())
	}
	pidfd, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, soPeerPidfd)
	if err != nil {
		return fmt.Errorf("peer pidfd (Linux 6.5+): %w", err)
	}
	defer func() { _ = unix.Close(pidfd) }() // a pidfd
	pid, err := pidfdPid(pidfd)
	if err != nil {
		return err
	}
	if pid != int(cred.Pid) {
		return fmt.Errorf("peer pid %d and pidfd's %d differ", cred.Pid, pid)
	}
	for i, ns := range peerNamespaces {
		var theirs unix.Stat_t
		if err := unix.Stat("/proc/"+strconv.Itoa(pid)+"/ns/"+ns, &theirs); err != nil {
			return fmt.Errorf("peer %s namespace: %w", ns, err)
		}
		if theirs.Dev != id.ns[i].Dev || theirs.Ino != id.ns[i].Ino {
			return fmt.Errorf("pid %d is in another %s namespace", pid, ns)
		}
	}
	own := id.status
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return fmt.Errorf("peer status: %w", err)
	}
	// No more confined than the daemon: a docket sandbox always adds a
	// seccomp filter and no_new_privs to what its docket had, including
	// where it cannot have a mount namespace of its own.
	for _, f := range []string{"NoNewPrivs", "Seccomp", "Seccomp_filters"} {
		theirs, ok1 := statusInt(status, f)
		mine, ok2 := statusInt(own, f)
		if !ok1 || !ok2 {
			return fmt.Errorf("no %s in /proc status: cannot tell whether pid %d is confined", f, pid)
		}
		if theirs > mine {
			return fmt.Errorf("pid %d is confined (%s %d, the daemon's %d)", pid, f, theirs, mine)
		}
	}
	// Still alive: then /proc/PID was that process all along.
	if err := unix.PidfdSendSignal(pidfd, 0, nil, 0); err != nil {
		return fmt.Errorf("peer pid %d: %w", pid, err)
	}
	return nil
}

// pidfdPid reads the pid a pidfd names from its fdinfo; -1 there means
// the process is gone.
func pidfdPid(pidfd int) (int, error) {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(pidfd))
	if err != nil {
		return 0, fmt.Errorf("pidfd info: %w", err)
	}
	v, ok := statusField(b, "Pid")
	if !ok {
		return 0, errors.New("pidfd info without a pid")
	}
	pid, err := strconv.Atoi(v)
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("peer gone (pidfd pid %q)", v)
	}
	return pid, nil
}

// statusField finds "Name:\tvalue" in a /proc status-like text.
func statusField(b []byte, name string) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == name {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

func statusInt(b []byte, name string) (int, bool) {
	v, ok := statusField(b, name)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}
