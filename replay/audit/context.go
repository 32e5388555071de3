package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/docket-engine/docket/events"
)

// Kinds of session events: what happened to the conversation rather than
// to one call.
const (
	// EventCompaction: the conversation was replaced by the model's
	// summary (or a compaction was tried and failed).
	EventCompaction = "compaction"
	// EventAttachments: a prompt came with files (@path) or images.
	EventAttachments = "attachments"
	// EventPolicyChange: the approval policy was changed mid-session
	// (/approvals); the calls after it were decided under the new one.
	EventPolicyChange = "policy_change"
)

// Event is something the journal records about the session's
// conversation rather than about one call: a context compaction, or a
// prompt with files attached. Events come among the calls in journal
// order; an audit narrowed to calls (--call, --unsandboxed) has none.
type Event struct {
	Seq        uint64        `json:"seq"`
	At         string        `json:"at"`
	Kind       string        `json:"kind"`
	Compaction *Compaction   `json:"compaction,omitempty"`
	Prompt     *Prompt       `json:"prompt,omitempty"`
	Policy     *PolicyChange `json:"policy_change,omitempty"`
}

// PolicyChange is one change of the approval policy during the session.
type PolicyChange struct {
	ApprovalPolicy string `json:"approval_policy"`
	Previous       string `json:"previous"`
	// Source is who changed it (user, config, ...).
	Source string `json:"source"`
	// Message is what the model was told of the change, when it was.
	Message string `json:"message,omitempty"`
	// Profile is set when the user switched the permission profile
	// (/permissions): the profile, the one before, and the sandbox mode
	// the later calls run under.
	Profile *ProfileSwitch `json:"profile,omitempty"`
}

// ProfileSwitch is a permission profile switch.
type ProfileSwitch struct {
	Profile     string   `json:"profile"`
	Previous    string   `json:"previous"`
	Why         string   `json:"why,omitempty"`
	SandboxMode string   `json:"sandbox_mode"`
	Hidden      []string `json:"hidden,omitempty"`
}

// Compaction is one compaction record, with what it summarised.
type Compaction struct {
	// TurnID is the turn it happened in (auto) or followed (manual).
	TurnID  string `json:"turn_id"`
	Trigger string `json:"trigger"`
	// FirstTurn and LastTurn bound the turns whose conversation the
	// summary replaced; before FirstTurn the conversation was already
	// the summary of PreviousSeq's compaction, which this one replaced too.
	FirstTurn   string `json:"first_turn"`
	LastTurn    string `json:"last_turn"`
	PreviousSeq uint64 `json:"previous_compaction_seq,omitempty"`
	// Replaced is how many conversation items the summary replaced, and
	// ReplacedDigest the running hash over them, as recorded.
	Replaced       int    `json:"replaced_items"`
	ReplacedDigest string `json:"replaced_digest"`
	// TokensBefore is the context's size before; Usage the summary
	// request's own tokens.
	TokensBefore int64        `json:"tokens_before"`
	Usage        events.Usage `json:"usage"`
	// KeptPrompt: the prompt of the turn under way was kept, before the
	// summary.
	KeptPrompt bool `json:"kept_prompt"`
	// Summary is the model's summary as recorded; SummarySHA256 its
	// digest, to compare with what a later request carried.
	Summary       string `json:"summary"`
	SummarySHA256 string `json:"summary_sha256,omitempty"`
	// Error is why the compaction failed; the conversation was left as
	// it was.
	Error string `json:"error,omitempty"`
}

// Prompt is a user turn that came with attachments.
type Prompt struct {
	TurnID string `json:"turn_id"`
	// Preview is the prompt's first line, cut at previewRunes.
	Preview     string       `json:"preview"`
	Attachments []Attachment `json:"attachments"`
	Images      []Image      `json:"images,omitempty"`
}

// Attachment is one file attached to a prompt, as the journal recorded
// it: the path the prompt named (relative to the workspace), the file's
// size, and the digest and length of the content the model was sent.
type Attachment struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// SentBytes is how much of the file the model got; SHA256 is over
	// those bytes.
	SentBytes int    `json:"sent_bytes"`
	SHA256    string `json:"sha256"`
	Truncated bool   `json:"truncated"`
}

// Image is one image attached to a prompt: the digest and length of the
// data URL the model was sent.
type Image struct {
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// EventSink is a Sink that also takes the session's events, in their
// place among the calls. Sinks that do not implement it get calls only.
type EventSink interface {
	Event(e *Event) error
}

// previewRunes bounds a prompt's preview.
const previewRunes = 100

// errMalformed is wrapped by the error of a record whose body decodes but
// cannot be what the engine wrote.
var errMalformed = errors.New("malformed record")

// conversation follows the turns and compactions the audit has seen, to
// say which turns a compaction summarised.
type conversation struct {
	lastTurn    string // the latest user turn
	firstTurn   string // the first turn not yet summarised
	lastCompact uint64 // seq of the latest successful compaction
}

// userTurn audits a user_turn record: a prompt with attachments becomes
// an event; a malformed attachment stops at the record.
func (a *auditor) userTurn(r events.Record, v *events.UserTurn) error {
	if err := checkAttachments(v.Attachments); err != nil {
		return &decodeStop{seq: r.Seq, err: err}
	}
	a.conv.lastTurn = v.TurnID
	if a.conv.firstTurn == "" {
		a.conv.firstTurn = v.TurnID
	}
	if len(v.Attachments) == 0 && len(v.Images) == 0 {
		return nil
	}
	p := &Prompt{TurnID: v.TurnID, Preview: preview(v.Text), Attachments: make([]Attachment, 0, len(v.Attachments))}
	for _, at := range v.Attachments {
		p.Attachments = append(p.Attachments, Attachment{Path: at.Path, Size: at.Size, SentBytes: len(at.Content),
			SHA256: digest(at.Content), Truncated: at.Truncated})
	}
	for _, img := range v.Images {
		p.Images = append(p.Images, Image{SHA256: digest(img), Bytes: len(img)})
	}
	return a.event(&Event{Seq: r.Seq, At: fmtTime(r.At), Kind: EventAttachments, Prompt: p})
}

// compaction audits a compaction record.
func (a *auditor) compaction(r events.Record, v *events.Compaction) error {
	if err := checkCompaction(v); err != nil {
		return &decodeStop{seq: r.Seq, err: err}
	}
	last := v.TurnID
	if last == "" {
		last = a.conv.lastTurn
	}
	c := &Compaction{TurnID: v.TurnID, Trigger: v.Trigger, FirstTurn: a.conv.firstTurn, LastTurn: last,
		PreviousSeq: a.conv.lastCompact, Replaced: v.Replaced, ReplacedDigest: v.ReplacedDigest,
		TokensBefore: v.TokensBefore, Usage: v.Usage, KeptPrompt: v.KeptPrompt, Summary: v.Summary, Error: v.Error}
	if v.Summary != "" {
		c.SummarySHA256 = digest(v.Summary)
	}
	if v.Error == "" {
		// The conversation is now the summary: an automatic compaction's
		// turn goes on after it, a manual one's next turn is new.
		a.conv.lastCompact = r.Seq
		a.conv.firstTurn = ""
		if v.Trigger == events.CompactAuto {
			a.conv.firstTurn = v.TurnID
		}
	}
	return a.event(&Event{Seq: r.Seq, At: fmtTime(r.At), Kind: EventCompaction, Compaction: c})
}

// policyChange audits a policy_changed record: calls that begin after it
// were decided under the new policy, and the audit says where it changed.
func (a *auditor) policyChange(r events.Record, v *events.PolicyChanged) error {
	a.approvalNow = v.ApprovalPolicy
	pc := &PolicyChange{ApprovalPolicy: v.ApprovalPolicy, Previous: v.Previous, Source: string(v.Source), Message: v.Message}
	if p := v.Permissions; p != nil {
		pc.Profile = &ProfileSwitch{Profile: p.Profile, Previous: p.Previous, Why: p.Why, SandboxMode: p.SandboxMode, Hidden: p.Plan.Hidden}
	}
	return a.event(&Event{Seq: r.Seq, At: fmtTime(r.At), Kind: EventPolicyChange, Policy: pc})
}

// event queues a session event behind the calls that began before it, so
// sinks get it in journal order. A narrowed audit (one call, or only the
// unsandboxed ones) lists calls alone.
func (a *auditor) event(e *Event) error {
	if a.opts.CallID != "" || a.opts.UnsandboxedOnly {
		return nil
	}
	t := &tracker{event: e, complete: true}
	a.order = append(a.order, t)
	return a.emitReady()
}

// checkCompaction refuses a compaction body the engine cannot have
// written.
func checkCompaction(v *events.Compaction) error {
	switch {
	case v.Trigger != events.CompactAuto && v.Trigger != events.CompactManual:
		return fmt.Errorf("%w: compaction trigger %q is neither %q nor %q", errMalformed, v.Trigger, events.CompactAuto, events.CompactManual)
	case v.Replaced < 0:
		return fmt.Errorf("%w: compaction replaced %d items", errMalformed, v.Replaced)
	case v.TokensBefore < 0:
		return fmt.Errorf("%w: compaction tokens_before is %d", errMalformed, v.TokensBefore)
	case v.Summary == "" && v.Error == "":
		return fmt.Errorf("%w: compaction has neither a summary nor an error", errMalformed)
	case v.Summary != "" && v.Error != "":
		return fmt.Errorf("%w: compaction has both a summary and an error", errMalformed)
	}
	return nil
}

// checkAttachments refuses attachments the engine cannot have recorded:
// each names a file inside the workspace by a relative path, with a size.
func checkAttachments(atts []events.Attachment) error {
	for i, at := range atts {
		p := at.Path
		switch {
		case p == "":
			return fmt.Errorf("%w: attachment %d has no path", errMalformed, i+1)
		case path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || path.Clean(p) != p:
			return fmt.Errorf("%w: attachment %d path %q is not a clean path inside the workspace", errMalformed, i+1, p)
		case at.Size < 0:
			return fmt.Errorf("%w: attachment %d (%s) has size %d", errMalformed, i+1, p, at.Size)
		}
	}
	return nil
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// preview is the first line of a prompt, at most previewRunes long.
func preview(s string) string {
	line, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	if utf8.RuneCountInString(line) > previewRunes {
		line = string([]rune(line)[:previewRunes])
		more = true
	}
	if more {
		line += " …"
	}
	return line
}
