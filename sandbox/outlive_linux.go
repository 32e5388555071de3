package sandbox

import "github.com/docket-engine/docket/sandbox/layers"

// LayerDiesLeaderOnly is the layer an unsandboxed run (an approved retry,
// danger-full-access, an unsandboxed hook) reports for what ends its
// processes when docket dies, kill -9 included: the parent-death signal
// reaches the command itself, not what it started in the background. Those
// processes are in the command's cgroup leaf (or only its process group)
// and are killed when the command exits, times out or is cancelled, but if
// docket is killed they run on until the next docket started in the same
// cgroup sweeps the dead one's leaves (sandbox/proctree), and with only the
// process group, for good. A sandboxed run has no such layer: its PID
// namespace's init takes every process down with docket.
//
// A PID namespace for unsandboxed runs was tried and not kept: a command in
// one cannot signal the host's processes by the pids it sees in /proc
// (kill(2) takes pids of its own namespace), and the pids it prints ($!,
// pid files) are not the host's, which is not what an unsandboxed run
// means.
const LayerDiesLeaderOnly = layers.DiesWithDocketLeaderOnly
