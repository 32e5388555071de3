package layers

import "strings"

// Names an unsandboxed run reports for how its process tree was killed
// (package proctree): TreeKillPrefix and the mechanism that held
// ("tree-kill:cgroup-v2", "tree-kill:cgroup-v1", "tree-kill:pgroup"). They
// are no sandbox layer: Explain has no words for them, TreeKillCaveat says
// what each leaves open.
const (
	TreeKillPrefix = "tree-kill:"
	TreeKillPGroup = TreeKillPrefix + "pgroup"
)

// DiesWithDocketLeaderOnly says that of an unsandboxed run only the
// process docket started dies with docket (its parent-death signal): what
// it started in the background may outlive a killed docket.
const DiesWithDocketLeaderOnly = "dies-with-docket:leader-only"

// TreeKillCaveat says how a process of an unsandboxed run can escape the
// tree kill layer names, so that the audit never prints it as a guarantee;
// "" for any other name.
func TreeKillCaveat(layer string) string {
	switch {
	case layer == DiesWithDocketLeaderOnly:
		return ": if docket was killed, background processes of the run may have outlived it"
	case layer == TreeKillPGroup:
		return ", which a process leaves with setsid"
	case strings.HasPrefix(layer, TreeKillPrefix):
		return ", which a process that may write the cgroup file system (root) can leave"
	}
	return ""
}
