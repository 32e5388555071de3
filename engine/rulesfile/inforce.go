package rulesfile

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/rules"
)

// InForce loads the rules files a session in project would load now, as the
// sources a session records: home's rules, then project's (project is ""
// when the workspace is not trusted, and then its rules do not load). Any
// load error fails closed. A file outside home/rules is marked Project, so
// its allow rules may skip a prompt but never lift the sandbox. A cancelled
// ctx interrupts a rules file mid-evaluation.
//
// It is what a session started now would record in session_started, and
// so what `docket replay --rules current` and replaytest's current-rules
// option replay with.
func InForce(ctx context.Context, home, project string) ([]events.RuleSource, error) {
	set, err := Load(Discover(home, project), rules.LoadOptions{Context: ctx})
	if err != nil {
		return nil, err
	}
	// Never nil: to a replay, nil rules mean "the recorded ones", and no
	// rules files now is a rule set of its own (the empty one).
	srcs := append([]events.RuleSource{}, set.Sources()...)
	userRules := filepath.Join(home, "rules") + string(filepath.Separator)
	for i := range srcs {
		srcs[i].Project = home == "" || !strings.HasPrefix(srcs[i].Path, userRules)
	}
	return srcs, nil
}
