package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/events"
	"github.com/spf13/cobra"
)

// modelScriptSetting records, among a session's settings, the absolute
// path of the model script that drove it, so resume can go on with it
// from any directory. (The configuration's own model_script setting holds
// the path as given, as TOML, and may be relative.)
const modelScriptSetting = "model_script_path"

// refuseUnresumableFlags rejects exec's flags that a resumed session cannot
// honour: it keeps the journal, policy and sandbox it was recorded with,
// so taking them silently would mislead.
func refuseUnresumableFlags(c *cobra.Command) error {
	for _, name := range []string{"ask-for-approval", "sandbox", "ephemeral", "add-dir", "dangerously-bypass-approvals-and-sandbox"} {
		if c.Flags().Changed(name) {
			flag := "--" + name
			if f := c.Flags().Lookup(name); f != nil && f.Shorthand != "" {
				flag = "-" + f.Shorthand + "/" + flag
			}
			return usageErrorf("%s does not apply to resume: a resumed session keeps the journal, approval policy and sandbox it was recorded with; start a new session with docket exec to change them", flag)
		}
	}
	return nil
}

// modelScriptSettings is the setting exec records for a scripted session.
func modelScriptSettings(cfg *config.Config) []events.Setting {
	if cfg.ModelProvider != "script" || cfg.ModelScript == "" {
		return nil
	}
	p, err := filepath.Abs(cfg.ModelScript)
	if err != nil {
		p = cfg.ModelScript
	}
	return []events.Setting{{Key: modelScriptSetting, Value: p}}
}

// recordedModel points cfg at the model the session was recorded with
// (provider, model name and, for a scripted session, its script; the
// script is skipped past the responses already journaled by the caller),
// unless this command line chose one: --model-script, -m, a profile, or a
// -c override of model_provider, model_script or model.
func recordedModel(c *cobra.Command, cfg *config.Config, ss *events.SessionStarted) error {
	chose := func(flag string, keys ...string) bool {
		if c.Flags().Changed(flag) {
			return true
		}
		overrides, _ := c.Flags().GetStringArray("config") // registered with every resume command
		for _, o := range overrides {
			k, _, _ := strings.Cut(o, "=")
			for _, key := range keys {
				if strings.TrimSpace(k) == key {
					return true
				}
			}
		}
		return false
	}
	if c.Flags().Changed("profile") {
		return nil
	}
	if !chose("model", "model") && ss.Config.Model != "" {
		cfg.Model = ss.Config.Model
	}
	if chose("model-script", "model_provider", "model_script") || ss.Config.ModelProvider == "" {
		return nil
	}
	cfg.ModelProvider = ss.Config.ModelProvider
	if cfg.ModelProvider != "script" {
		return nil
	}
	for _, st := range ss.Settings {
		if st.Key == modelScriptSetting {
			cfg.ModelScript = st.Value
			return nil
		}
	}
	return usageErrorf("session %s was driven by a model script whose path its journal does not record (an older docket wrote it): give it with --model-script FILE", ss.SessionID)
}

// resumeUntouched says that a resume failed before it wrote anything, so
// the session is as it was and can be resumed again; the exit code stays
// the cause's (2 for a usage or configuration error).
func resumeUntouched(id string, err error) error {
	code := exitFailed
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	return &exitError{code: code, err: fmt.Errorf("%w\ndocket: session %s was not changed; fix the above and resume it again", err, id)}
}
