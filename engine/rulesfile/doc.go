// Package rulesfile is the file side of rules files: finding them
// ($DOCKET_HOME/rules, <project>/.docket/rules), reading them, and appending
// an approved amendment under a file lock. Parsing, evaluation and what an
// amendment line says stay in the pure states/rules.
package rulesfile
