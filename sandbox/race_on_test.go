//go:build race

package sandbox

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = true
