package proto

import (
	"strings"

	"github.com/docket-engine/docket/sandbox/layers"
)

// Describe names a namespace setup for the record of a fallback.
func (ns Namespaces) Describe() string {
	var names []string
	for _, n := range []struct {
		on   bool
		name string
	}{{ns.User, layers.UserNS}, {ns.Mount, layers.MountNS}, {ns.PID, layers.PIDNS}, {ns.Net, layers.NetNS}, {ns.IPC, layers.IPCNS}, {ns.UTS, layers.UTSNS}} {
		if n.on {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "no namespaces"
	}
	return "namespaces " + strings.Join(names, "+")
}
