package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// The status line names the network as the audit does (events.NetworkWords),
// ahead of the layers so a narrow terminal keeps it; off goes unsaid.
func TestStatusLineNamesTheNetworkInForce(t *testing.T) {
	for _, tc := range []struct {
		network   string
		want, not string
	}{
		{events.NetworkWordsOff, "sandbox workspace-write (landlock:v7 seccomp)", "network"},
		{events.NetworkWordsOn, "sandbox workspace-write, network on (landlock:v7 seccomp)", "egress"},
		{events.NetworkWordsEgress, "sandbox workspace-write, network through the egress proxy (landlock:v7 seccomp)", "network on"},
	} {
		f := newFake()
		f.info.Network = tc.network
		m := New(context.Background(), f, Options{Width: 200, Height: 30})
		m.info = f.Info()
		line := m.statusLine()
		if !strings.Contains(line, tc.want) || strings.Contains(line, tc.not) {
			t.Errorf("network %q: status line %q, want %q and not %q", tc.network, line, tc.want, tc.not)
		}
	}
}
