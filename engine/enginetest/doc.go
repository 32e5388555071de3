// Package enginetest holds the engine's test twins: an in-memory Log
// (MemLog), a Runner that answers from a function instead of running
// anything (FakeRunner), and one scripted Approver (ScriptedApprover). Each
// honours the contract written on its interface in package engine, and
// TestLog checks any Log against that contract; the package's own tests run
// it against both MemLog and the bbolt-backed journal.
//
// Tests in every package use these instead of local copies, so that a
// change to a contract is made, and checked, in one place.
package enginetest
