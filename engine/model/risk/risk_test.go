package risk_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/risk"
	"github.com/docket-engine/docket/events"
)

// answerModel replies with fixed text, or blocks until its context ends.
type answerModel struct {
	text  string
	err   error
	block bool
	got   model.Request
	left  time.Duration // time left before the deadline, as seen by the model
}

func (m *answerModel) Respond(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
	m.got = req
	if d, ok := ctx.Deadline(); ok {
		m.left = time.Until(d)
	}
	if m.block {
		<-ctx.Done()
		return model.Response{}, ctx.Err()
	}
	if m.err != nil {
		return model.Response{}, m.err
	}
	return model.Response{Items: []events.Item{{Type: events.ItemMessage, Role: "assistant", Text: m.text}}}, nil
}

func TestAssessRisk(t *testing.T) {
	for _, tc := range []struct {
		name      string
		m         *answerModel
		wantLevel string
		wantDesc  string
		wantErr   string
	}{
		{"plain JSON", &answerModel{text: `{"risk_level":"high","description":"Pushes to a remote."}`}, "high", "Pushes to a remote.", ""},
		{"fenced and capitalised", &answerModel{text: "```json\n{\"risk_level\": \"Medium\", \"description\": \"Installs a package.\"}\n```"}, "medium", "Installs a package.", ""},
		{"prose around it", &answerModel{text: `Sure: {"risk_level":"low","description":"Reads a file."} Hope that helps.`}, "low", "Reads a file.", ""},
		{"unknown level", &answerModel{text: `{"risk_level":"extreme","description":"x"}`}, "", "", `risk_level "extreme"`},
		{"not JSON", &answerModel{text: "I think it is fine."}, "", "", "no JSON object"},
		{"broken JSON", &answerModel{text: `{"risk_level": low}`}, "", "", "unparseable"},
		{"model error", &answerModel{err: errors.New("HTTP 500")}, "", "", "HTTP 500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := risk.AssessRisk(context.Background(), tc.m, []string{"git", "push"}, "/repo", "fatal: unable to access")
			if got.RiskLevel != tc.wantLevel || got.Description != tc.wantDesc {
				t.Errorf("got %+v, want level %q description %q", got, tc.wantLevel, tc.wantDesc)
			}
			if tc.wantErr == "" && got.Error != "" || tc.wantErr != "" && !strings.Contains(got.Error, tc.wantErr) {
				t.Errorf("error %q, want %q", got.Error, tc.wantErr)
			}
		})
	}
}

func TestAssessRiskAsksWithTemperatureZeroAndALimit(t *testing.T) {
	m := &answerModel{text: `{"risk_level":"low","description":"ok"}`}
	long := strings.Repeat("x", 10000) + "THE END"
	risk.AssessRisk(context.Background(), m, []string{"touch", "/etc/x"}, "/repo", long)
	if m.got.Temperature == nil || *m.got.Temperature != 0 {
		t.Errorf("temperature %v, want 0", m.got.Temperature)
	}
	if len(m.got.Tools) != 0 || m.got.Instructions == "" || len(m.got.Items) != 1 {
		t.Errorf("request %+v: want instructions, one message, no tools", m.got)
	}
	q := m.got.Items[0].Text
	if !strings.Contains(q, `["touch","/etc/x"]`) || !strings.Contains(q, "/repo") || !strings.Contains(q, "THE END") || len(q) > 5000 {
		t.Errorf("question (%d bytes) lacks the command, cwd or output tail", len(q))
	}
	if m.left <= 0 || m.left > risk.Timeout {
		t.Errorf("deadline %v away, want within %v", m.left, risk.Timeout)
	}
}

func TestAssessRiskTimeoutIsNoAssessment(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	got := risk.AssessRisk(ctx, &answerModel{block: true}, []string{"sleep", "9"}, "/", "")
	if got.RiskLevel != "" || !strings.Contains(got.Error, "timed out") {
		t.Errorf("got %+v, want only a timeout error", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"risk_level":"low","description":"x"}`, "}{", "{", `{"risk_level":5}`, "```json\n{}\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		level, _, err := risk.Parse(s)
		if err == nil && level != risk.Low && level != risk.Medium && level != risk.High {
			t.Errorf("accepted level %q from %q", level, s)
		}
	})
}
