// Package proctree starts a command so that every process it starts can be
// killed as a whole, including those that left its process group (setsid,
// nohup with setsid, a daemonizing server). It serves the commands docket
// runs without the sandbox's PID namespace: an unsandboxed call and an
// external agent CLI used as the model.
//
// The strongest mechanism this machine gives is used, and Mechanism says
// which one held, so that what a run reports never claims more:
//   - CgroupV2: a leaf cgroup the command is cloned into
//     (CLONE_INTO_CGROUP); killing writes cgroup.kill, or freezes and kills
//     every member on kernels without it. Works on a pure v2 host and on the
//     v2 hierarchy of a hybrid one (/sys/fs/cgroup/unified).
//   - CgroupV1: a leaf of the v1 freezer hierarchy the forking thread joins
//     for the fork only; killing freezes the leaf, kills every member, thaws,
//     and repeats until it is empty.
//   - ProcessGroup: the command's own process group, as before: a child
//     that calls setsid escapes it.
//
// A command that can write to the cgroup file system (root, unsandboxed)
// can still move itself out of its leaf; nothing short of a PID namespace
// stops that.
package proctree

import "github.com/docket-engine/docket/sandbox/layers"

// Mechanism is how a Tree finds every process of its command.
type Mechanism string

// The mechanisms, strongest first.
const (
	CgroupV2     Mechanism = "cgroup-v2"
	CgroupV1     Mechanism = "cgroup-v1"
	ProcessGroup Mechanism = "pgroup"
)

// LayerPrefix starts the layer name a run reports for its tree
// ("tree-kill:cgroup-v2").
const LayerPrefix = layers.TreeKillPrefix

// Layer is the name an outcome's Layers report for the mechanism that held.
func (m Mechanism) Layer() string { return LayerPrefix + string(m) }

// Options adjusts how a Tree is made.
type Options struct {
	// Without lists mechanisms not to try, so that tests can exercise the
	// fallbacks on a machine that has the stronger ones.
	Without []Mechanism

	// freezeV2 kills a v2 leaf by freezing it and killing every member
	// even where cgroup.kill exists: the path of kernels before 5.14,
	// for tests on newer ones.
	freezeV2 bool
}

func (o Options) allows(m Mechanism) bool {
	for _, w := range o.Without {
		if w == m {
			return false
		}
	}
	return true
}
