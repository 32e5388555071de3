package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
)

// mcpServerName is what `docket mcp add` accepts as a server name, as
// Codex does: it is a bare TOML key and part of qualified tool names.
var mcpServerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// newServer is what `docket mcp add` writes.
type newServer struct {
	command           string
	args              []string
	env               map[string]string
	url               string
	bearerTokenEnvVar string
}

// tomlString quotes s as a TOML basic string: JSON's string escapes are
// TOML's (without HTML escaping).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// block is the server's table as lines of TOML.
func (s newServer) block(name string) []string {
	lines := []string{"[mcp_servers." + name + "]"}
	if s.url != "" {
		lines = append(lines, "url = "+tomlString(s.url))
		if s.bearerTokenEnvVar != "" {
			lines = append(lines, "bearer_token_env_var = "+tomlString(s.bearerTokenEnvVar))
		}
		return lines
	}
	lines = append(lines, "command = "+tomlString(s.command))
	if len(s.args) > 0 {
		q := make([]string, len(s.args))
		for i, a := range s.args {
			q[i] = tomlString(a)
		}
		lines = append(lines, "args = ["+strings.Join(q, ", ")+"]")
	}
	if len(s.env) > 0 {
		keys := make([]string, 0, len(s.env))
		for k := range s.env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		kv := make([]string, len(keys))
		for i, k := range keys {
			kv[i] = tomlString(k) + " = " + tomlString(s.env[k])
		}
		lines = append(lines, "env = { "+strings.Join(kv, ", ")+" }")
	}
	return lines
}

// serverSpan finds [mcp_servers.NAME] and its sub-tables: the first line
// and one past the last, trailing blank and comment lines left to whatever
// follows. found is false when the file has no such table.
func serverSpan(lines []string, name string) (start, end int, found bool, err error) {
	start, end = -1, -1
	section := []string(nil)
	for i, l := range lines {
		if k, ok := config.TableHeaderKey(l); ok {
			section = k
			in := len(section) >= 2 && section[0] == "mcp_servers" && section[1] == name
			switch {
			case in && start < 0:
				start = i
			case in && end >= 0:
				return 0, 0, false, fmt.Errorf("line %d: [mcp_servers.%s] is split across the file; edit it by hand", i+1, name)
			case !in && start >= 0 && end < 0:
				end = i
			}
			continue
		}
		// The server defined inline: a dotted key at the top, or a key of
		// an [mcp_servers] table.
		key := strings.TrimSpace(strings.SplitN(l, "=", 2)[0])
		if strings.Contains(l, "=") && ((section == nil && strings.HasPrefix(key, "mcp_servers.")) ||
			(len(section) == 1 && section[0] == "mcp_servers")) {
			k := config.SplitKey(key)
			if (section == nil && len(k) >= 2 && k[1] == name) || (section != nil && len(k) >= 1 && k[0] == name) {
				return 0, 0, false, fmt.Errorf("line %d: server %q is defined inline; edit it by hand", i+1, name)
			}
		}
	}
	if start < 0 {
		return 0, 0, false, nil
	}
	if end < 0 {
		end = len(lines)
	}
	for end > start+1 {
		t := strings.TrimSpace(lines[end-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	return start, end, true, nil
}

// editServer rewrites config text: it removes server name (srv nil) or
// puts srv's table in its place (or at the end). Every other line stays as
// it was; the result must decode to the same document except for that one
// server, or the edit is refused.
func editServer(text, name string, srv *newServer) (string, bool, error) {
	lines := strings.Split(text, "\n")
	start, end, found, err := serverSpan(lines, name)
	if err != nil {
		return "", false, err
	}
	var out []string
	switch {
	case found && srv == nil:
		out = append(append(out, lines[:start]...), lines[end:]...)
		// Two blank lines where the table was become one.
		if start > 0 && start < len(out) && strings.TrimSpace(out[start-1]) == "" && strings.TrimSpace(out[start]) == "" {
			out = append(out[:start], out[start+1:]...)
		}
	case found:
		out = append(append(append(out, lines[:start]...), srv.block(name)...), lines[end:]...)
	case srv == nil:
		return text, false, nil
	default:
		body := strings.TrimRight(text, "\n")
		out = []string{}
		if body != "" {
			out = append(out, body, "")
		}
		out = append(append(out, srv.block(name)...), "")
	}
	result := strings.Join(out, "\n")
	if err := sameExceptServer(text, result, name, srv != nil); err != nil {
		return "", false, err
	}
	return result, found, nil
}

// sameExceptServer checks an edit changed nothing but mcp_servers.NAME.
func sameExceptServer(before, after, name string, want bool) error {
	var a, b map[string]any
	if err := toml.Unmarshal([]byte(before), &a); err != nil {
		return fmt.Errorf("the config is not valid TOML; fix it first: %w", err)
	}
	if err := toml.Unmarshal([]byte(after), &b); err != nil {
		return fmt.Errorf("editing the config would break it (%w); edit it by hand", err)
	}
	drop := func(m map[string]any) bool {
		s, _ := m["mcp_servers"].(map[string]any)
		_, had := s[name]
		delete(s, name)
		if s != nil && len(s) == 0 {
			delete(m, "mcp_servers")
		}
		return had
	}
	drop(a)
	if had := drop(b); had != want {
		return errors.New("editing the config did not leave the server as asked; edit it by hand")
	}
	if a == nil {
		a = map[string]any{}
	}
	if b == nil {
		b = map[string]any{}
	}
	if !reflect.DeepEqual(a, b) {
		return errors.New("editing the config would change other settings; edit it by hand")
	}
	return nil
}
