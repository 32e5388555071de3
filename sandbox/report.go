package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// maxReportLine bounds one report line (a layers list, an error message).
const maxReportLine = 64 << 10

// setupReport is what the helper said on the setup pipe, read to EOF.
type setupReport struct {
	layers []string
	// failed is the setup error, when the helper could not confine itself.
	failed *proto.ReportLine
	// bad is a pipe that did not carry exactly one known line; the call
	// then fails, and never falls back.
	bad error
}

// readSetup reads the setup pipe to EOF. The helper closes it before the
// command exists, so EOF comes before anything the command could write.
func readSetup(r io.Reader) setupReport {
	var rep setupReport
	lines, err := readLines(r, 1)
	switch {
	case err != nil:
		rep.bad = fmt.Errorf("setup pipe: %w", err)
	case len(lines) == 0:
		// The helper died or exec'ed nothing before saying anything.
	case lines[0].Kind == proto.ReportLayers && len(lines[0].Layers) > 0:
		rep.layers = lines[0].Layers
	case lines[0].Kind == proto.ReportSetupError:
		rep.failed = &lines[0]
	default:
		rep.bad = fmt.Errorf("setup pipe: unexpected %q line", lines[0].Kind)
	}
	return rep
}

// exitReport is what the init stage said on the exit pipe.
type exitReport struct {
	line *proto.ReportLine
	bad  error
}

// readExit reads the exit pipe to EOF.
func readExit(r io.Reader) exitReport {
	var rep exitReport
	lines, err := readLines(r, 1)
	switch {
	case err != nil:
		rep.bad = fmt.Errorf("exit pipe: %w", err)
	case len(lines) == 0:
	case lines[0].Kind == proto.ReportExit || lines[0].Kind == proto.ReportExecError || lines[0].Kind == proto.ReportInitError:
		rep.line = &lines[0]
	default:
		rep.bad = fmt.Errorf("exit pipe: unexpected %q line", lines[0].Kind)
	}
	return rep
}

// readLines reads JSON lines to EOF and fails on more than max of them or
// on one that does not parse; it always drains the pipe, so the writer is
// never blocked.
func readLines(r io.Reader, max int) ([]proto.ReportLine, error) {
	var lines []proto.ReportLine
	var firstErr error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxReportLine)
	for sc.Scan() {
		if firstErr != nil {
			continue
		}
		var l proto.ReportLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			firstErr = fmt.Errorf("line %q: %w", sc.Text(), err)
			continue
		}
		if len(lines) == max {
			firstErr = errors.New("more than one line")
			continue
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil && firstErr == nil {
		firstErr = err
		_, _ = io.Copy(io.Discard, r)
	}
	return lines, firstErr
}
