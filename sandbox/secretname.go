package sandbox

// IsSecretName reports whether an environment variable name looks like it
// holds a credential (KEY, SECRET, TOKEN or PASSWORD in it): the variables
// a command's environment loses unless secrets are kept.
func IsSecretName(name string) bool { return isSecretName(name) }
