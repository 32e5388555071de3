// Package wire is the one message wire of the sandbox: a SOCK_SEQPACKET
// socket pair between docket and a session's sandbox server, one JSON
// message per datagram, descriptors attached as SCM_RIGHTS. Only docket
// and the server hold its ends; a command never has one (the server's end
// is closed in every init, docket's is close-on-exec). The messages
// themselves are package proto's (server_wire_linux.go).
package wire
