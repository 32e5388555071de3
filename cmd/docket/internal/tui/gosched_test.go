package tui

import "runtime"

func runtimeGosched() { runtime.Gosched() }
