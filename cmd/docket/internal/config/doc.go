// Package config loads Docket's layered configuration: built-in defaults,
// $DOCKET_HOME/config.toml, the selected [profiles.NAME], the environment,
// and finally flags and -c KEY=VALUE overrides, highest last. Every value
// remembers where it came from, and every error names the file (or flag),
// the key and, for files, the line.
package config
