package sandbox

// HelperArg is the first argument that puts the docket binary in helper mode.
const HelperArg = "__docket_sandbox_helper"

// IsHelper reports whether args ask for the sandbox helper.
func IsHelper(args []string) bool { return len(args) > 1 && args[1] == HelperArg }

// HelperMain is replaced by the sandbox implementation.
func HelperMain(args []string) int { return 127 }
