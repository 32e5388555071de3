// Package bridge makes the one way out of a sandboxed command's empty
// network namespace: a listener on 127.0.0.1:Port of that namespace, served
// by the egress proxy from docket's own process. It is a leaf (x/sys only)
// so the sandbox helper can make the listener inside the namespace, before
// it starts the command, without linking the proxy.
package bridge
