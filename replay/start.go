package replay

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// SessionStart reads the session_started record that opens the journal at
// path: the recorded configuration, workspace and rules, which `--rules
// current` and replaytest need before they replay.
func SessionStart(path string) (*events.SessionStarted, error) {
	var ss *events.SessionStarted
	var derr error
	errStop := errors.New("stop")
	err := journal.Scan(path, 1, func(r events.Record) error {
		b, err := r.Decode()
		if err != nil {
			derr = err
		} else {
			ss, _ = b.(*events.SessionStarted)
		}
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("%s: %w", path, derr)
	}
	if ss == nil {
		return nil, fmt.Errorf("%s does not begin with session_started", path)
	}
	return ss, nil
}
