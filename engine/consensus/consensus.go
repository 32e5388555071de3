// Package consensus combines the answers of several external agents into
// one report: their outputs side by side, which of them agree, and whether
// enough of them finished (the quorum) for the result to count. Model
// drives the session of a `docket agents run` that asks them.
package consensus

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/docket-engine/docket/engine"
)

// AgreeAt is the word-set similarity (Jaccard) from which two answers are
// said to agree; identical answers (after normalising case, spacing and
// punctuation) always do.
const AgreeAt = 0.8

// Pair is how alike two finished agents' answers are.
type Pair struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	Similarity float64 `json:"similarity"`
	Agree      bool    `json:"agree"`
}

// Report is the consensus of one `docket agents run`.
type Report struct {
	SessionID string `json:"session_id"`
	Prompt    string `json:"prompt"`
	Quorum    int    `json:"quorum"`
	// Finished counts the agents that finished with an answer.
	Finished int  `json:"finished"`
	Valid    bool `json:"valid"`
	// Agents are the results in the order the agents were asked.
	Agents []engine.AgentResult `json:"agents"`
	// Groups are the finished agents grouped by agreeing answers, largest
	// first: one group means they all agree.
	Groups [][]string `json:"groups"`
	Pairs  []Pair     `json:"pairs"`
	// Synthesis is the configured model's combined answer ("" when the
	// quorum was not met, or the model failed).
	Synthesis string `json:"synthesis"`
	// Error says why the consensus is not valid.
	Error string `json:"error,omitempty"`
}

// Build computes the report from the agents' results; Synthesis and
// SessionID are the caller's to fill.
func Build(prompt string, quorum int, results []engine.AgentResult) Report {
	r := Report{Prompt: prompt, Quorum: quorum, Agents: results, Groups: [][]string{}, Pairs: []Pair{}}
	var done []engine.AgentResult
	for _, a := range results {
		if a.Status == engine.AgentFinished {
			done = append(done, a)
		}
	}
	r.Finished = len(done)
	r.Valid = r.Finished >= quorum
	if !r.Valid {
		r.Error = Failure(quorum, results)
	}
	words := make([]map[string]bool, len(done))
	norm := make([]string, len(done))
	for i, a := range done {
		norm[i] = normalize(a.Answer)
		words[i] = wordSet(norm[i])
	}
	parent := make([]int, len(done))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	for i := range done {
		for j := i + 1; j < len(done); j++ {
			sim := jaccard(words[i], words[j])
			agree := norm[i] == norm[j] || sim >= AgreeAt
			if norm[i] == norm[j] {
				sim = 1
			}
			r.Pairs = append(r.Pairs, Pair{A: done[i].Agent, B: done[j].Agent, Similarity: float64(int(sim*100+0.5)) / 100, Agree: agree})
			if agree {
				parent[find(j)] = find(i)
			}
		}
	}
	byRoot := map[int][]string{}
	var roots []int
	for i, a := range done {
		root := find(i)
		if _, ok := byRoot[root]; !ok {
			roots = append(roots, root)
		}
		byRoot[root] = append(byRoot[root], a.Agent)
	}
	for _, root := range roots {
		r.Groups = append(r.Groups, byRoot[root])
	}
	slices.SortStableFunc(r.Groups, func(a, b []string) int { return len(b) - len(a) })
	return r
}

// Failure says why a quorum was not met, naming every agent that did not
// finish and why.
func Failure(quorum int, results []engine.AgentResult) string {
	finished := 0
	var why []string
	for _, a := range results {
		if a.Status == engine.AgentFinished {
			finished++
			continue
		}
		why = append(why, fmt.Sprintf("%s %s (%s)", a.Agent, strings.ReplaceAll(a.Status, "_", " "), a.Error))
	}
	return fmt.Sprintf("quorum not met: %d of %d agents finished, %d needed; %s", finished, len(results), quorum, strings.Join(why, "; "))
}

// normalize lowercases, drops punctuation and collapses spaces, so that
// "42." and "42" are the same answer.
func normalize(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(f, " ")
}

func wordSet(norm string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(norm) {
		m[w] = true
	}
	return m
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
