package approve

import (
	"fmt"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// Addressed is one --decisions answer: for the next request in the order
// they are asked (Path ""), or for the call at Path: CALL_ID for the
// session's own call, NAME/CALL_ID for a subagent's (NAME/CHILD/CALL_ID for
// a subagent's subagent).
type Addressed struct {
	Path     string
	Decision events.ReviewDecision
}

// ParseAnswers splits a --decisions list whose items are DECISION or
// PATH=DECISION and checks each.
func ParseAnswers(list string) ([]Addressed, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	words := strings.Split(list, ",")
	out := make([]Addressed, len(words))
	for i, w := range words {
		w = strings.TrimSpace(w)
		path, word, addressed := strings.Cut(w, "=")
		if !addressed {
			path, word = "", w
		}
		path, word = strings.TrimSpace(path), strings.TrimSpace(word)
		if addressed && (path == "" || strings.ContainsAny(path, " \t")) {
			return nil, fmt.Errorf("item %d %q: the call before '=' is empty or holds a space; write CALL_ID=DECISION or NAME/CALL_ID=DECISION", i+1, w)
		}
		d, ok := decision(word)
		if !ok {
			return nil, &DecisionError{Index: i, Word: word, Suggestion: policy.Nearest(word, spellings())}
		}
		out[i] = Addressed{Path: path, Decision: d}
	}
	return out, nil
}

// take removes and returns the answer for the request at path: the first
// addressed to it, else the first unaddressed one.
func take(left []Addressed, path string) (events.ReviewDecision, []Addressed, bool) {
	pick := -1
	for i, a := range left {
		if a.Path == path {
			pick = i
			break
		}
	}
	if pick < 0 {
		for i, a := range left {
			if a.Path == "" {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return "", left, false
	}
	d := left[pick].Decision
	return d, append(left[:pick:pick], left[pick+1:]...), true
}
