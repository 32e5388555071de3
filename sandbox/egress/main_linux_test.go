package egress

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/docket-engine/docket/sandbox/bridge"
)

// childEnv makes the test binary act as the part of a sandbox helper that
// runs inside the command's namespace: make the bridge's listener, hand it
// out on descriptor 3, then become the command (bash -c $1).
const childEnv = "DOCKET_EGRESS_TEST_INSIDE"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(inside())
	}
	os.Exit(m.Run())
}

func inside() int {
	f, err := bridge.ListenLoopbackHere(bridge.Port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	c, err := net.FileConn(os.NewFile(3, "bridge-channel"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := bridge.SendListener(c.(*net.UnixConn), f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// The command keeps neither the listener nor the channel.
	f.Close()
	c.Close()
	env := append([]string{"PATH=/usr/bin:/bin", "P=" + os.Getenv("P"), "TP=" + os.Getenv("TP")}, bridge.Env()...)
	err = syscall.Exec("/bin/bash", []string{"bash", "-c", os.Getenv("SCRIPT")}, env)
	fmt.Fprintln(os.Stderr, err)
	return 2
}
