// Package githttp serves git repositories over smart HTTP with the real
// git http-backend behind net/http/cgi: what the egress tests and
// benchmarks clone through the proxy, with no git daemon or web server to
// install.
package githttp

import (
	"fmt"
	"net/http"
	"net/http/cgi"
	"os/exec"
	"path/filepath"
	"strings"
)

// Handler serves the bare repositories under root (a clone URL is
// http://HOST/NAME.git), read-only: http-backend refuses pushes unless a
// repository enables http.receivepack.
func Handler(root string) (http.Handler, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return nil, fmt.Errorf("githttp: git --exec-path: %w", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	return &cgi.Handler{
		Path: backend,
		Dir:  root,
		// GIT_HTTP_EXPORT_ALL: serve every repository under root, with no
		// git-daemon-export-ok file in each.
		Env:        []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
		InheritEnv: []string{"PATH", "HOME"},
	}, nil
}
