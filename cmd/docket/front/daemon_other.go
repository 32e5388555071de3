//go:build !linux

package main

// sandboxViaDaemon: there is no sandbox daemon off Linux.
func sandboxViaDaemon(string, []string) (int, bool) { return 0, false }
