package replay

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// maxTreeSessions bounds a tree walk, whatever the journals say.
const maxTreeSessions = 4096

// TreeNode is one session of a tree of subagents.
type TreeNode struct {
	SessionID string
	// Path is the session's journal file.
	Path string
	// Name is the subagent's name ("" for the root); Prefix addresses the
	// session's calls from the root ("" for the root, "writer/" for its
	// child writer, "writer/check/" for writer's child check).
	Name, Prefix string
	// ParentCall is the call of the parent session that started it.
	ParentCall string
	Depth      int
}

// MissingChildError says a parent's journal records a subagent that ended
// (its outcome is journaled) whose own journal cannot be found.
type MissingChildError struct {
	Parent, Call, Child string
	Err                 error
}

func (e *MissingChildError) Error() string {
	return fmt.Sprintf("session %s call %s started subagent %s, whose journal cannot be found: %v", e.Parent, e.Call, e.Child, e.Err)
}

func (e *MissingChildError) Unwrap() error { return e.Err }

// Tree lists the session whose journal is at path and its subagents, depth
// first, each child after its parent in the order their calls started. find
// returns the journal file of a session id. A child that was recorded as
// started but never got a journal (the parent died first) is left out; one
// whose outcome the parent journaled must exist (MissingChildError).
func Tree(path string, find func(id string) (string, error)) ([]TreeNode, error) {
	var out []TreeNode
	seen := map[string]bool{}
	var walk func(n TreeNode) error
	walk = func(n TreeNode) error {
		if seen[n.Path] {
			return nil
		}
		if len(out) >= maxTreeSessions {
			return fmt.Errorf("more than %d sessions in the tree of subagents; stopped at %s", maxTreeSessions, n.Path)
		}
		seen[n.Path] = true
		out = append(out, n)
		type child struct {
			call string
			sp   events.AgentSpawn
		}
		var kids []child
		ended := map[string]bool{}
		err := journal.Scan(n.Path, 1, func(r events.Record) error {
			switch r.Kind {
			case events.KindSessionStarted:
				if n.SessionID == "" {
					b, err := r.Decode()
					if err != nil {
						return err
					}
					n.SessionID = b.(*events.SessionStarted).SessionID
					out[len(out)-1].SessionID = n.SessionID
				}
			case events.KindExecStarted:
				b, err := r.Decode()
				if err != nil {
					return err
				}
				if es := b.(*events.ExecStarted); es.Agent != nil {
					kids = append(kids, child{call: es.CallID, sp: *es.Agent})
				}
			case events.KindExecOutcome:
				b, err := r.Decode()
				if err != nil {
					return err
				}
				if o := b.(*events.ExecOutcome); o.Agent != nil {
					ended[o.Agent.ChildID] = true
				}
			}
			return nil
		})
		var dmg *journal.DamagedError
		if err != nil && !errors.As(err, &dmg) {
			return fmt.Errorf("read %s: %w", n.Path, err)
		}
		for _, k := range kids {
			p, err := find(k.sp.ChildID)
			if err != nil {
				if ended[k.sp.ChildID] {
					return &MissingChildError{Parent: n.SessionID, Call: k.call, Child: k.sp.ChildID, Err: err}
				}
				continue
			}
			if err := walk(TreeNode{SessionID: k.sp.ChildID, Path: p, Name: k.sp.Name, Prefix: n.Prefix + k.sp.Name + "/",
				ParentCall: n.Prefix + k.call, Depth: n.Depth + 1}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(TreeNode{Path: path}); err != nil {
		return out, err
	}
	return out, nil
}
