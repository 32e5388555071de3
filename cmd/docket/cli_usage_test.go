package main

import (
	"os"
	"strings"
	"testing"
)

func TestUsageErrorsExitTwoOnOneLineWithSuggestions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"exce", "hi"}, `unknown command "exce" for "docket"; did you mean "exec"?`},
		{[]string{"sesions"}, `did you mean "sessions"?`},
		{[]string{"frobnicate"}, `unknown command "frobnicate" for "docket" (commands: `},
		{[]string{"rules", "chek"}, `unknown command "chek" for "docket rules"; did you mean "check"?`},
		{[]string{"sessions", "--jsn"}, `unknown flag --jsn for "docket sessions"; did you mean --json?`},
		{[]string{"fsm", "--fromat", "dot"}, `did you mean --format?`},
		{[]string{"sessions", "-z"}, `unknown shorthand flag: 'z' in -z`},
		{[]string{"sessions", "--home"}, `flag needs an argument: --home`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := cliRun(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", stderr, tc.want)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

func TestNoArgumentsShowsHelpAndSucceeds(t *testing.T) {
	t.Parallel()
	code, stdout, _ := cliRun(t)
	if code != exitOK || !strings.Contains(stdout, "Available Commands") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}

func TestExecConfigurationErrorsExitTwoNamingTheSource(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cfgFile := home + "/config.toml"
	if err := os.WriteFile(cfgFile, []byte("model = 'x'\n[profiles.fast]\nsandbox_mode = 'read-ony'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := home + "/script.jsonl"
	if err := os.WriteFile(script, []byte(`{"output":[{"type":"message","content":"hi"}]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-a", "on-requst"}, `--ask-for-approval: approval_policy: "on-requst" is not a valid approval policy`},
		{[]string{"-s", "workspace_write"}, `did you mean "workspace-write"?`},
		{[]string{"-c", "sandbox_workspace_write.netwrk_access=true"}, `-c sandbox_workspace_write.netwrk_access=true: sandbox_workspace_write.netwrk_access: unknown key; did you mean "network_access"?`},
		{[]string{"-p", "fast"}, cfgFile + `:3: sandbox_mode: "read-ony" is not a valid sandbox mode`},
		{[]string{"-p", "slow"}, cfgFile + `: profile "slow" is not defined`},
		{[]string{"--decisions", "approved,aproved"}, `did you mean "approved"?`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"exec", "--home", home, "--model-script", script}, tc.args...)
			code, _, stderr := cliRun(t, append(args, "hello")...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q on one line", code, stderr, tc.want)
			}
		})
	}
}
