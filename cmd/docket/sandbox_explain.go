package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/layers"
)

// writeForecast prints, for `docket sandbox --explain` without a command,
// the layers the plan would get on this machine and what each stops or
// what its absence costs. It is a forecast from probing the kernel; a run
// reports what was enforced (writeEnforced).
func writeForecast(w io.Writer, plan events.SandboxPlan, caps sandbox.Capabilities) error {
	var b strings.Builder
	fmt.Fprintf(&b, "this machine: %s\n", machineSummary(caps))
	for _, n := range caps.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	if plan.Sandboxed() {
		if err := caps.Check(plan); err != nil {
			fmt.Fprintf(&b, "REFUSED: %v\n", err)
			_, werr := io.WriteString(w, b.String())
			return werr
		}
	}
	b.WriteString("would run under (forecast; a run reports what was enforced):\n")
	forecast := caps.Layers(plan)
	if plan.Mode == sandbox.ModeWorkspaceWrite && caps.Namespaces() {
		// The git directory walk runs for writable roots; whether it
		// finishes within its bound (or reports gitdirs:partial) only a run says.
		forecast = append(forecast, layers.GitDirs)
	}
	e := layers.Explain(plan, forecast)
	// How each limit is enforced (a cgroup leaf, else rlimits) is decided
	// when the helper starts; the forecast only says what the plan asks.
	missing := e.Missing[:0:0]
	for _, m := range e.Missing {
		if !strings.HasPrefix(m.Layer, "limit:") {
			missing = append(missing, m)
		}
	}
	e.Missing = missing
	writeExplanation(&b, e)
	if l := plan.Limits; plan.Sandboxed() && !l.IsZero() {
		fmt.Fprintf(&b, "  limits asked: %d processes, %d MiB of memory, %d s of CPU per process, %d MiB per file "+
			"(a cgroup of the call's own where docket can make one, else rlimits; a run reports which held)\n",
			l.MaxProcesses, l.MaxMemoryMB, l.MaxCPUSeconds, l.MaxFileSizeMB)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeEnforced prints what the layers a finished run reported stop.
func writeEnforced(w io.Writer, plan events.SandboxPlan, out events.ExecOutcome) error {
	var b strings.Builder
	b.WriteString("ran under:\n")
	writeExplanation(&b, layers.Explain(plan, out.Layers))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeExplanation(b *strings.Builder, e layers.Explanation) {
	for _, l := range e.Lines() {
		b.WriteString("  " + l + "\n")
	}
}

// machineSummary is one line on what Probe found.
func machineSummary(c sandbox.Capabilities) string {
	parts := []string{c.OS}
	if c.LandlockABI > 0 {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d", c.LandlockABI))
	} else {
		parts = append(parts, "no Landlock")
	}
	if c.Seccomp {
		parts = append(parts, "seccomp")
	} else {
		parts = append(parts, "no seccomp")
	}
	if c.Root {
		parts = append(parts, "running as root")
	} else {
		parts = append(parts, "not root")
	}
	if c.UserNamespaces {
		parts = append(parts, "user namespaces")
	} else {
		parts = append(parts, "no user namespaces")
	}
	return strings.Join(parts, ", ")
}
