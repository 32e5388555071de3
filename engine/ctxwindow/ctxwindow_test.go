package ctxwindow

import (
	"testing"

	"github.com/docket-engine/docket/events"
)

func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		model    string
		override int64
		want     int64
	}{
		{"gpt-5-codex", 0, 272_000},
		{"gpt-5", 0, 272_000},
		{"gpt-4.1-mini", 0, 1_047_576},
		{"gpt-4o-2024-08-06", 0, 128_000},
		{"gpt-4", 0, 8_192},
		{"o3-mini", 0, 200_000},
		{"some-local-model", 0, 0},
		{"some-local-model", 32_000, 32_000},
		{"gpt-5-codex", 400_000, 400_000},
	} {
		if got := Window(tc.model, tc.override); got != tc.want {
			t.Errorf("Window(%q, %d) = %d, want %d", tc.model, tc.override, got, tc.want)
		}
	}
}

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name            string
		st              Status
		percent         int
		left            int64
		near, compactOK bool
	}{
		{"empty", Status{Used: 0, Window: 1000}, 0, 1000, false, false},
		{"below the warning", Status{Used: 799, Window: 1000, AutoCompactLimit: 900}, 79, 201, false, false},
		{"at the warning", Status{Used: 800, Window: 1000, AutoCompactLimit: 900}, 80, 200, true, false},
		{"at the compact limit", Status{Used: 900, Window: 1000, AutoCompactLimit: 900}, 90, 100, true, true},
		{"over the window", Status{Used: 1200, Window: 1000}, 120, 0, true, false},
		{"unknown window", Status{Used: 5000}, -1, -1, false, false},
		{"unknown window, explicit limit", Status{Used: 5000, AutoCompactLimit: 4000}, -1, -1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p := tc.st.Percent(); p != tc.percent {
				t.Errorf("Percent = %d, want %d", p, tc.percent)
			}
			if l := tc.st.Left(); l != tc.left {
				t.Errorf("Left = %d, want %d", l, tc.left)
			}
			if n := tc.st.NearLimit(); n != tc.near {
				t.Errorf("NearLimit = %v, want %v", n, tc.near)
			}
			if c := tc.st.ShouldCompact(); c != tc.compactOK {
				t.Errorf("ShouldCompact = %v, want %v", c, tc.compactOK)
			}
		})
	}
}

func TestEstimates(t *testing.T) {
	if got := EstimateText(""); got != 0 {
		t.Errorf("EstimateText(\"\") = %d", got)
	}
	if got := EstimateText("abcde"); got != 2 {
		t.Errorf("EstimateText(5 bytes) = %d, want 2 (rounded up)", got)
	}
	items := []events.Item{
		{Type: events.ItemMessage, Role: "user", Text: "12345678", Images: []string{"data:image/png;base64,x"}},
		{Type: events.ItemFunctionCall, Name: "shell", Arguments: `{"a":1}`},
		{Type: events.ItemFunctionCallOutput, Output: "1234"},
	}
	if got, want := EstimateItems(items), int64(2+imageTokens+2+2+1); got != want {
		t.Errorf("EstimateItems = %d, want %d", got, want)
	}
	if n, ok := Used(events.Usage{}); ok || n != 0 {
		t.Errorf("Used(zero) = %d, %v; want unknown", n, ok)
	}
	if n, ok := Used(events.Usage{InputTokens: 100, CachedInputTokens: 80, OutputTokens: 7}); !ok || n != 107 {
		t.Errorf("Used = %d, %v; want 107 (cached tokens are part of the input)", n, ok)
	}
	if got := DefaultAutoCompactLimit(272_000); got != 244_800 {
		t.Errorf("DefaultAutoCompactLimit = %d", got)
	}
}
