// Package layers names the sandbox's layers and says, in words, what each
// stops and what its absence costs: the vocabulary `docket sandbox
// --explain`, `docket audit` and docs/sandbox.md share.
//
// It is a leaf: no cgo, no I/O, nothing of the runner, so that a reader of
// journals (replay/audit) can explain a run without linking the sandbox.
// The words are checked against the escape suites of package sandbox
// (TestLayerWordsNameRealAttacks, TestMissingNamespacesCostWhatExplainSays
// there), so they cannot drift from what the sandbox does under attack.
package layers
