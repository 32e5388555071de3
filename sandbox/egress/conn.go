package egress

import (
	"bufio"
	"net"
)

// bufConn is a client connection read through a buffer, so the first
// byte can be peeked to tell the protocols apart.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func newBufConn(c net.Conn) *bufConn { return &bufConn{Conn: c, r: bufio.NewReaderSize(c, 4096)} }

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }
