package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Kinds of helper report lines.
const (
	reportLayers     = "layers"
	reportSetupError = "setup_error"
	reportExecError  = "exec_error"
	reportExit       = "exit"
)

// reportLine is one JSON line the helper writes on its report pipe.
type reportLine struct {
	Kind   string   `json:"kind"`
	Layers []string `json:"layers,omitempty"`
	// Layer names the layer whose setup failed (setup_error).
	Layer string `json:"layer,omitempty"`
	Error string `json:"error,omitempty"`
	// Code is the command's exit code (exit, exec_error).
	Code int `json:"code,omitempty"`
	// Signal is the signal that killed the command (exit).
	Signal int `json:"signal,omitempty"`
}

// helperReport is what the parent learned from the helper.
type helperReport struct {
	layers    []string
	setup     *reportLine
	execError *reportLine
	exit      *reportLine
	// bad records a line that could not be parsed; a helper that cannot
	// speak its protocol is treated as a failed setup.
	bad error
}

// readReport reads report lines until EOF.
func readReport(r io.Reader) helperReport {
	var rep helperReport
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		var l reportLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			rep.bad = fmt.Errorf("helper report %q: %w", sc.Text(), err)
			continue
		}
		switch l.Kind {
		case reportLayers:
			rep.layers = l.Layers
		case reportSetupError:
			rep.setup = &l
		case reportExecError:
			rep.execError = &l
		case reportExit:
			rep.exit = &l
		default:
			rep.bad = fmt.Errorf("helper report: unknown kind %q", l.Kind)
		}
	}
	if err := sc.Err(); err != nil && rep.bad == nil {
		rep.bad = fmt.Errorf("helper report: %w", err)
	}
	return rep
}
