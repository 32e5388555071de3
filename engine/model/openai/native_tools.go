package openai

import (
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/docket-engine/docket/events"
)

// The Responses API's own shell and apply_patch tools: their calls are
// items of their own (shell_call, apply_patch_call), kept in the journal
// as JSON of the call's action or operation, and their results go back
// as shell_call_output and apply_patch_call_output.

// ShellAction is a shell_call's action as the journal keeps it.
type ShellAction struct {
	Commands        []string `json:"commands"`
	TimeoutMs       int64    `json:"timeout_ms,omitempty"`
	MaxOutputLength int64    `json:"max_output_length,omitempty"`
}

// PatchOperation is an apply_patch_call's operation as the journal keeps it.
type PatchOperation struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Diff string `json:"diff,omitempty"`
}

// ShellOutput is one command's result in a shell_call_output.
type ShellOutput struct {
	Stdout  string       `json:"stdout"`
	Stderr  string       `json:"stderr"`
	Outcome ShellOutcome `json:"outcome"`
}

// ShellOutcome is "exit" with its code, or "timeout".
type ShellOutcome struct {
	Type     string `json:"type"`
	ExitCode *int64 `json:"exit_code,omitempty"`
}

func shellCallItem(o responses.ResponseOutputItemUnion) events.Item {
	sc := o.AsShellCall()
	b, _ := json.Marshal(ShellAction{Commands: sc.Action.Commands, TimeoutMs: sc.Action.TimeoutMs, MaxOutputLength: sc.Action.MaxOutputLength}) // plain strings and numbers: cannot fail
	return events.Item{Type: events.ItemShellCall, ID: o.ID, CallID: o.CallID, Name: "shell", Arguments: string(b)}
}

func applyPatchCallItem(o responses.ResponseOutputItemUnion) events.Item {
	ap := o.AsApplyPatchCall()
	b, _ := json.Marshal(PatchOperation{Type: ap.Operation.Type, Path: ap.Operation.Path, Diff: ap.Operation.Diff}) // plain strings: cannot fail
	return events.Item{Type: events.ItemApplyPatchCall, ID: o.ID, CallID: o.CallID, Name: "apply_patch", Arguments: string(b)}
}

// nativeInputItem maps a journaled native-tool item back onto the request.
func nativeInputItem(i int, it events.Item) (responses.ResponseInputItemUnionParam, error) {
	if it.CallID == "" {
		return responses.ResponseInputItemUnionParam{}, fmt.Errorf("item %d (%s): call_id is required", i, it.Type)
	}
	switch it.Type {
	case events.ItemShellCall:
		var a ShellAction
		if err := json.Unmarshal([]byte(it.Arguments), &a); err != nil {
			return responses.ResponseInputItemUnionParam{}, fmt.Errorf("item %d (shell_call): action: %w", i, err)
		}
		p := &responses.ResponseInputItemShellCallParam{CallID: it.CallID, Status: "completed",
			Action: responses.ResponseInputItemShellCallActionParam{Commands: a.Commands}}
		if a.TimeoutMs > 0 {
			p.Action.TimeoutMs = param.NewOpt(a.TimeoutMs)
		}
		if a.MaxOutputLength > 0 {
			p.Action.MaxOutputLength = param.NewOpt(a.MaxOutputLength)
		}
		if it.ID != "" {
			p.ID = param.NewOpt(it.ID)
		}
		return responses.ResponseInputItemUnionParam{OfShellCall: p}, nil
	case events.ItemShellCallOutput:
		var outs []ShellOutput
		if err := json.Unmarshal([]byte(it.Output), &outs); err != nil {
			return responses.ResponseInputItemUnionParam{}, fmt.Errorf("item %d (shell_call_output): output: %w", i, err)
		}
		p := &responses.ResponseInputItemShellCallOutputParam{CallID: it.CallID}
		for _, o := range outs {
			c := responses.ResponseFunctionShellCallOutputContentParam{Stdout: o.Stdout, Stderr: o.Stderr}
			if o.Outcome.Type == "timeout" {
				c.Outcome.OfTimeout = &responses.ResponseFunctionShellCallOutputContentOutcomeTimeoutParam{}
			} else {
				code := int64(-1)
				if o.Outcome.ExitCode != nil {
					code = *o.Outcome.ExitCode
				}
				c.Outcome.OfExit = &responses.ResponseFunctionShellCallOutputContentOutcomeExitParam{ExitCode: code}
			}
			p.Output = append(p.Output, c)
		}
		return responses.ResponseInputItemUnionParam{OfShellCallOutput: p}, nil
	case events.ItemApplyPatchCall:
		var op PatchOperation
		if err := json.Unmarshal([]byte(it.Arguments), &op); err != nil {
			return responses.ResponseInputItemUnionParam{}, fmt.Errorf("item %d (apply_patch_call): operation: %w", i, err)
		}
		p := &responses.ResponseInputItemApplyPatchCallParam{CallID: it.CallID, Status: "completed"}
		switch op.Type {
		case "create_file":
			p.Operation.OfCreateFile = &responses.ResponseInputItemApplyPatchCallOperationCreateFileParam{Path: op.Path, Diff: op.Diff}
		case "update_file":
			p.Operation.OfUpdateFile = &responses.ResponseInputItemApplyPatchCallOperationUpdateFileParam{Path: op.Path, Diff: op.Diff}
		case "delete_file":
			p.Operation.OfDeleteFile = &responses.ResponseInputItemApplyPatchCallOperationDeleteFileParam{Path: op.Path}
		default:
			return responses.ResponseInputItemUnionParam{}, fmt.Errorf("item %d (apply_patch_call): unknown operation %q", i, op.Type)
		}
		if it.ID != "" {
			p.ID = param.NewOpt(it.ID)
		}
		return responses.ResponseInputItemUnionParam{OfApplyPatchCall: p}, nil
	case events.ItemApplyPatchCallOutput:
		status := it.Status
		if status != "completed" {
			status = "failed"
		}
		p := &responses.ResponseInputItemApplyPatchCallOutputParam{CallID: it.CallID, Status: status}
		if it.Output != "" {
			p.Output = param.NewOpt(it.Output)
		}
		return responses.ResponseInputItemUnionParam{OfApplyPatchCallOutput: p}, nil
	}
	return responses.ResponseInputItemUnionParam{}, fmt.Errorf("item %d: unknown item type %q", i, it.Type)
}
