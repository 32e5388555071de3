package replay

import (
	"slices"
	"sync"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/rules"
)

// recordedAmender replays "approve and save a prefix rule": it returns
// what the recorded session's rule_amended said (line, file, whether it
// was written) and writes no rules file. The engine adds the rule to the
// rules in force, so later decisions see it as the session did.
type recordedAmender struct {
	mu   sync.Mutex
	left []events.RuleAmended // recorded amendments not yet replayed, in seq order
}

func newRecordedAmender(in *recorded) *recordedAmender {
	return &recordedAmender{left: slices.Clone(in.amendments)}
}

// Amend returns the first unreplayed recorded amendment of this pattern;
// one the journal never recorded gets the line a rule file would hold and
// no file, which the comparison then reports as a divergence.
func (a *recordedAmender) Amend(pattern []string) (string, string, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, ra := range a.left {
		if slices.Equal(ra.Pattern, pattern) {
			a.left = slices.Delete(a.left, i, i+1)
			return ra.Line, ra.File, ra.Written, nil
		}
	}
	line, err := rules.FormatAllowRule(pattern)
	return line, "", false, err
}
