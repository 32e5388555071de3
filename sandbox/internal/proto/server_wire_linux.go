package proto

// The messages docket and a sandbox server exchange; package wire carries
// them (a SOCK_SEQPACKET pair, one JSON message per datagram, descriptors
// as SCM_RIGHTS).

// ServerFD is the descriptor the server finds its end of the socket at.
const ServerFD = 3

// ServerCommand asks the server to run one command. Its descriptors, in
// order: stdin, stdout, stderr, the exit pipe's write end, then one
// cgroup file per Cgroups.
type ServerCommand struct {
	ID uint64 `json:"id"`
	// CallSpec is the command's part of the call's Spec, encoded as this
	// message's own fields: Protected are bound read-only in the command's
	// own mount namespace, Scanned skipped if they vanished.
	CallSpec
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Cgroups int      `json:"cgroups,omitempty"`
	// NoLifeline asks the init not to end the command when docket goes
	// (LifelineDisabled); a server honours it only in the docketfault build.
	NoLifeline bool `json:"no_lifeline,omitempty"`
	// Gated says the command's last descriptor is the read end of a pipe
	// on which docket gives the go: one byte, once the call's write-ahead
	// record is durable. The init is set up and confined meanwhile; it is
	// given its go only after that byte, and end of file without it (the
	// call abandoned, docket gone) makes it exit with the command never
	// started.
	Gated bool `json:"gated,omitempty"`
}

// Kinds of server replies.
const (
	// ServerReady: the session's namespaces are built (first message).
	ServerReady = "ready"
	// ServerStarted: the command's init is confined and has its go (for
	// a gated command: gets it once docket gave it); a pidfd for it is
	// attached. Layers are what it enforces.
	ServerStarted = "started"
	// ServerSetupError: the command (or the server) could not be
	// confined; the command never started.
	ServerSetupError = "setup_error"
	// ServerDone: the init was reaped; Status is its wait status.
	ServerDone = "done"
)

// ServerReply is one message from the server.
type ServerReply struct {
	Kind   string   `json:"kind"`
	ID     uint64   `json:"id,omitempty"`
	Layers []string `json:"layers,omitempty"`
	Layer  string   `json:"layer,omitempty"`
	Error  string   `json:"error,omitempty"`
	Status int      `json:"status,omitempty"`
}
