// Package attach gathers context for a prompt: `@` file references (fuzzy
// completion over the workspace's files, respecting .gitignore, and
// expansion of the references into attached file content within size
// caps) and images given by path. It reads the disk; what it produces is
// journaled with the prompt (events.UserTurn), so replay and resume never
// call it.
package attach
