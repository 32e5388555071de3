// Package approve answers the engine's approval requests: from the
// --decisions list, from a person at a terminal, or from a chain of the
// two. An approver with no answer returns engine.ErrNoDecision, and the
// session parks.
package approve
