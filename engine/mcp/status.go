package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// ServerStatus is one configured server as `docket mcp list` shows it.
type ServerStatus struct {
	Name  string `json:"name"`
	State State  `json:"state"`
	// Error says why the server failed or exited; empty otherwise.
	Error string `json:"error,omitempty"`
	// Command is the configured command line, before ${VAR} expansion;
	// for a remote server, its url.
	Command []string `json:"command"`
	// URL is a remote server's url, before ${VAR} expansion.
	URL string `json:"url,omitempty"`
	// Tools are the qualified names registered for the server, sorted.
	Tools []string `json:"tools"`
	// Restarts counts restarts after the server exited.
	Restarts int `json:"restarts,omitempty"`
	// Layers are the sandbox layers the running process is confined by
	// (sandbox = true); empty when it runs unsandboxed or is not running.
	Layers []string `json:"layers,omitempty"`
}

// List starts the servers if Start has not been called yet, and returns
// every configured server's status, sorted by name.
func (m *Manager) List(ctx context.Context) []ServerStatus {
	_ = m.Start(ctx) // failures are in the statuses
	return m.Status()
}

// Status returns every configured server's current status, sorted by name,
// without starting anything.
func (m *Manager) Status() []ServerStatus {
	m.mu.RLock()
	byServer := map[string][]string{}
	for _, t := range m.tools {
		byServer[t.Server] = append(byServer[t.Server], t.Qualified)
	}
	m.mu.RUnlock()
	out := make([]ServerStatus, 0, len(m.names))
	for _, name := range m.names {
		s := m.servers[name]
		s.mu.Lock()
		st := ServerStatus{
			Name:     name,
			State:    s.state,
			Command:  s.cfg.commandLine(),
			Tools:    byServer[name],
			Restarts: s.restarts,
			URL:      s.cfg.URL,
		}
		if s.live != nil {
			st.Layers = s.live.layers
		}
		if s.err != nil && s.state != StateRunning {
			st.Error = s.err.Error()
		}
		s.mu.Unlock()
		if st.Tools == nil {
			st.Tools = []string{}
		}
		out = append(out, st)
	}
	return out
}

// RenderList writes statuses for `docket mcp list`: with asJSON one JSON
// object {"servers": [...]}, otherwise a table of server, state and tool
// count followed by each server's error, sandbox layers and tool names.
func RenderList(w io.Writer, statuses []ServerStatus, asJSON bool) error {
	if statuses == nil {
		statuses = []ServerStatus{}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Servers []ServerStatus `json:"servers"`
		}{statuses}); err != nil {
			return fmt.Errorf("mcp list: %w", err)
		}
		return nil
	}
	if len(statuses) == 0 {
		_, err := fmt.Fprintln(w, "No MCP servers configured ([mcp_servers.NAME] in config.toml).")
		return err
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tTOOLS\tCOMMAND")
	for _, s := range statuses {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", s.Name, s.State, len(s.Tools), strings.Join(s.Command, " "))
	}
	_ = tw.Flush()
	for _, s := range statuses {
		if s.Error == "" && len(s.Tools) == 0 && len(s.Layers) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", s.Name)
		if s.Error != "" {
			fmt.Fprintf(&b, "  error: %s\n", s.Error)
		}
		if len(s.Layers) > 0 {
			fmt.Fprintf(&b, "  sandbox: %s\n", strings.Join(s.Layers, ", "))
		}
		for _, t := range s.Tools {
			fmt.Fprintf(&b, "  %s\n", t)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcp list: %w", err)
	}
	return nil
}
