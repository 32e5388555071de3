// Package server is a session's sandbox server: a helper started once per
// session and plan (by docket, through sandbox.Servers), in the mount,
// network, IPC and UTS namespaces docket created for it. It builds the
// plan's mount layout once (main_linux.go) and, per command, on a thread
// of its own, binds the command's protected paths, covers the sockets,
// builds the Landlock ruleset and clones the command's C init
// (sandbox/internal/initc), which confines itself before the command is
// handed to it (init_linux.go). It reuses the helper's pieces
// (sandbox/internal/confine) and speaks proto's messages over
// sandbox/internal/wire. Only the docket binary links it (the init is C,
// and the lean helper is built without cgo).
package server
