// Package ctxwindow is Docket's token accounting: how large a model's
// context window is (a table of known models, overridable in config), how
// many tokens a conversation holds (the provider's reported usage when
// there is one, an estimate otherwise), and when that is near the limit.
package ctxwindow

import (
	"strings"

	"github.com/docket-engine/docket/events"
)

// known is the table of context windows, in tokens, by model-name prefix;
// the longest matching prefix wins. The figures are the providers'
// published input windows, as Codex uses them (gpt-5 models: 272,000 of
// input beside their output budget).
func known() []struct {
	prefix string
	tokens int64
} {
	return []struct {
		prefix string
		tokens int64
	}{
		{"gpt-5", 272_000},
		{"gpt-4.1", 1_047_576},
		{"gpt-4o", 128_000},
		{"gpt-4-turbo", 128_000},
		{"gpt-4", 8_192},
		{"gpt-3.5-turbo", 16_385},
		{"o1", 200_000},
		{"o3", 200_000},
		{"o4-mini", 200_000},
		{"codex-mini", 200_000},
		{"gpt-oss", 96_000},
	}
}

// Known returns the context window of model from Docket's table, and
// whether the model is in it.
func Known(model string) (int64, bool) {
	best, size := -1, int64(0)
	for _, k := range known() {
		if strings.HasPrefix(model, k.prefix) && len(k.prefix) > best {
			best, size = len(k.prefix), k.tokens
		}
	}
	return size, best >= 0
}

// Window returns the context window to account against: override when it
// is positive (model_context_window), else the table's; 0 when neither
// knows the model.
func Window(model string, override int64) int64 {
	if override > 0 {
		return override
	}
	w, _ := Known(model)
	return w
}

// AutoCompactFraction is the share of the window at which Docket compacts
// automatically when model_auto_compact_token_limit is not set.
const AutoCompactFraction = 0.9

// WarnFraction is the share of the window past which Docket warns that the
// context is nearly full.
const WarnFraction = 0.8

// DefaultAutoCompactLimit is the auto-compact limit for a window when the
// configuration sets none: AutoCompactFraction of it, or 0 (never) for an
// unknown window.
func DefaultAutoCompactLimit(window int64) int64 {
	return int64(float64(window) * AutoCompactFraction)
}

// bytesPerToken is the rule of thumb for English text and code with the
// providers' tokenizers; estimates round up.
const bytesPerToken = 4

// imageTokens is what one input image is counted as: the providers bill a
// high-detail 1024×1024 image at about this many tokens.
const imageTokens = 765

// EstimateText estimates the tokens of s.
func EstimateText(s string) int64 {
	return int64((len(s) + bytesPerToken - 1) / bytesPerToken)
}

// EstimateItems estimates the tokens of conversation items.
func EstimateItems(items []events.Item) int64 {
	var n int64
	for _, it := range items {
		n += EstimateText(it.Text) + EstimateText(it.Arguments) + EstimateText(it.Input) +
			EstimateText(it.Output) + EstimateText(it.Name)
		n += int64(len(it.Images)) * imageTokens
	}
	return n
}

// Status is how full the context window is.
type Status struct {
	// Used is the tokens the conversation holds: the last response's
	// reported input and output tokens plus an estimate of what was added
	// since, or an estimate of the whole when no usage was reported.
	Used int64
	// Window is the context window (0: unknown).
	Window int64
	// Estimated is true when any part of Used is an estimate.
	Estimated bool
	// AutoCompactLimit is the size at which the engine compacts (0: never).
	AutoCompactLimit int64
}

// Percent returns how full the window is, 0–100 (more when over), or -1
// when the window is unknown.
func (s Status) Percent() int {
	if s.Window <= 0 {
		return -1
	}
	return int(s.Used * 100 / s.Window)
}

// Left returns the tokens left in the window (never negative), or -1 when
// the window is unknown.
func (s Status) Left() int64 {
	if s.Window <= 0 {
		return -1
	}
	return max(0, s.Window-s.Used)
}

// NearLimit reports whether the context is past WarnFraction of a known
// window.
func (s Status) NearLimit() bool {
	return s.Window > 0 && float64(s.Used) >= float64(s.Window)*WarnFraction
}

// ShouldCompact reports whether the context has reached the auto-compact
// limit.
func (s Status) ShouldCompact() bool {
	return s.AutoCompactLimit > 0 && s.Used >= s.AutoCompactLimit
}

// Used returns the context size from the last reported usage: its input
// and output tokens are what the conversation held when that response
// ended. A zero usage (a provider or script that reports none) counts as
// unknown.
func Used(last events.Usage) (int64, bool) {
	n := last.InputTokens + last.OutputTokens
	return n, n > 0
}
