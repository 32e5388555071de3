package agentcli

import "syscall"

// lifeline makes the kernel kill the CLI when the thread that started it
// ends, so a killed docket leaves no agent running.
func lifeline() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
