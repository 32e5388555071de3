// Command githttp serves the bare git repositories under -root over smart
// HTTP on -addr (scripts/bench-egress-peers.sh clone).
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"

	"github.com/docket-engine/docket/internal/githttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	root := flag.String("root", ".", "directory holding NAME.git repositories")
	flag.Parse()
	h, err := githttp.Handler(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Addr: *addr, Handler: h}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "githttp:", err)
		os.Exit(1)
	}
}
