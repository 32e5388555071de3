// Package risk asks the model how risky it would be to run a command the
// sandbox denied without the sandbox, for the retry approval prompt. It is
// advisory: a slow, failing or unparseable answer yields no assessment,
// never a failure.
package risk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// Timeout bounds one assessment.
const Timeout = 5 * time.Second

// Risk levels, as the model must spell them.
const (
	Low    = "low"
	Medium = "medium"
	High   = "high"
)

// maxOutputBytes is how much of the failed run's output the model sees (the end).
const maxOutputBytes = 4096

// instructions tell the model what to answer.
const instructions = `You assess the risk of running a shell command outside its sandbox. The sandbox blocked the command; the user must decide whether to run it again with no sandbox, with their full permissions. Judge what the command would do to their machine, files, credentials and network.

Answer with one JSON object and nothing else:
{"risk_level": "low" | "medium" | "high", "description": "<one or two sentences: what the command does and why the sandbox stopped it>"}

low: reads or builds inside the project, or harmless system queries.
medium: writes outside the project, installs packages, or talks to well-known hosts.
high: deletes or overwrites data, changes system configuration, touches credentials, or sends data to unknown hosts.`

// AssessRisk asks m, with temperature 0 and a 5-second limit, for the risk of
// running command (in cwd, having printed output when the sandbox denied it)
// without the sandbox. On timeout, model error or an unparseable answer the
// result carries only Error. The caller sets CallID.
func AssessRisk(ctx context.Context, m model.Model, command []string, cwd, output string) events.RiskAssessment {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	zero := 0.0
	resp, err := m.Respond(ctx, model.Request{
		Instructions: instructions,
		Items:        []events.Item{{Type: events.ItemMessage, Role: "user", Text: question(command, cwd, output)}},
		Temperature:  &zero,
	}, nil)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return events.RiskAssessment{Error: "risk assessment timed out"}
		}
		return events.RiskAssessment{Error: "risk assessment failed: " + err.Error()}
	}
	var text strings.Builder
	for _, it := range resp.Items {
		if it.Type == events.ItemMessage {
			text.WriteString(it.Text)
		}
	}
	level, desc, err := Parse(text.String())
	if err != nil {
		return events.RiskAssessment{Error: err.Error()}
	}
	return events.RiskAssessment{RiskLevel: level, Description: desc}
}

// question is the user message describing the denied command.
func question(command []string, cwd, output string) string {
	argv, _ := json.Marshal(command)
	if len(output) > maxOutputBytes {
		output = "[...]" + output[len(output)-maxOutputBytes:]
	}
	return fmt.Sprintf("Command (argv): %s\nWorking directory: %s\nOutput when the sandbox denied it:\n%s", argv, cwd, output)
}

// Parse reads the model's answer: one JSON object, possibly inside a code
// fence or surrounded by prose. It returns the lower-cased risk level.
func Parse(answer string) (level, description string, err error) {
	start, end := strings.Index(answer, "{"), strings.LastIndex(answer, "}")
	if start < 0 || end < start {
		return "", "", fmt.Errorf("unparseable risk assessment: no JSON object in %q", clip(answer))
	}
	var a struct {
		RiskLevel   string `json:"risk_level"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal([]byte(answer[start:end+1]), &a); err != nil {
		return "", "", fmt.Errorf("unparseable risk assessment: %v in %q", err, clip(answer))
	}
	level = strings.ToLower(strings.TrimSpace(a.RiskLevel))
	switch level {
	case Low, Medium, High:
	default:
		return "", "", fmt.Errorf("unparseable risk assessment: risk_level %q is not low, medium or high", clip(a.RiskLevel))
	}
	return level, strings.TrimSpace(a.Description), nil
}

func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
