package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/layers"
	"github.com/spf13/cobra"
)

// TestAPermissionsSwitchGetsTheSessionPlan: /permissions NAME journals
// exactly the plan a session started with --permissions NAME runs under
// (the one builder, sessionPlan): the hidden paths, the egress proxy and
// local binding of a network-on profile, and --add-dir's root. The picker
// and the status line show that plan, after a resume too.
func TestAPermissionsSwitchGetsTheSessionPlan(t *testing.T) {
	dir := t.TempDir()
	wsDir, home, extra := filepath.Join(dir, "ws"), filepath.Join(dir, "home"), filepath.Join(dir, "extra")
	for _, d := range []string{wsDir, home, extra, filepath.Join(wsDir, ".git")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(wsDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("codes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("[permissions.dev.filesystem]\n\":root\" = \"read\"\n\":project_roots\" = \"write\"\n%q = \"none\"\n"+
		"[permissions.dev.network]\nenabled = true\nallow_local_binding = true\n[permissions.dev.network.domains]\n\"example.test\" = \"allow\"\n", secret)
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(script, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(profile string) *config.Config {
		t.Helper()
		cfg, err := config.Load(config.LoadOptions{Home: home, Cwd: wsDir, Env: func(string) string { return "" },
			Flags: config.Flags{Permissions: &profile, ModelScript: &script}})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	ctx := context.Background()
	quiet := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}

	// The session a start under dev runs.
	w, err := wire(ctx, quiet, load("dev"), wsDir, wireOptions{addDirs: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := s.Config().Plan
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.finish(); err != nil {
		t.Fatal(err)
	}
	if len(want.Hidden) == 0 || !want.Egress || !want.LocalBinding {
		t.Fatalf("the profile's session plan lacks what the test compares: %+v", want)
	}

	// A chat started under :read-only that switches to dev.
	b := &chatBackend{a: quiet, flags: &execFlags{commonFlags: commonFlags{home: home}}, cfg: load(":read-only"), cwd: wsDir, addDirs: []string{extra}}
	if _, err := b.New(ctx); err != nil {
		t.Fatal(err)
	}
	path := b.path
	if _, err := b.SetPermissions("dev"); err != nil {
		t.Fatal(err)
	}
	// The picker names the paths the plan in force hides: the switched
	// one's, and after a resume still the switched one's, not the start's.
	hidden := func(when string) {
		t.Helper()
		info, err := b.Permissions()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(info.Hidden, want.Hidden) {
			t.Errorf("%s, /permissions says the profile hides %q, want %q", when, info.Hidden, want.Hidden)
		}
	}
	hidden("after the switch")
	// The status line's sandbox, network and layers are the plan in
	// force too: after a resume, not the start's network off.
	status := func(when string) {
		t.Helper()
		i := b.Info()
		if i.SandboxMode != string(want.Mode) || i.Network != events.NetworkWordsEgress {
			t.Errorf("%s, the status line says sandbox %s, network %q; want %s, %q", when, i.SandboxMode, i.Network, want.Mode, events.NetworkWordsEgress)
		}
		if caps := sandbox.Probe(); caps.Namespaces() && !slices.Contains(i.Layers, layers.Egress) {
			t.Errorf("%s, the status line's layers %v lack %s", when, i.Layers, layers.Egress)
		}
	}
	status("after the switch")
	id := b.id
	if err := b.close(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		b.cmd = &cobra.Command{} // resume asks which flags were given: none
		if _, err := b.Resume(ctx, id); err != nil {
			t.Fatal(err)
		}
		hidden("resumed")
		status("resumed")
		if err := b.close(); err != nil {
			t.Fatal(err)
		}
	}()
	j, err := journal.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	recs, err := j.All()
	if err != nil {
		t.Fatal(err)
	}
	var got *events.PermissionsChange
	for _, r := range recs {
		if body, err := r.Decode(); err == nil {
			if pc, ok := body.(*events.PolicyChanged); ok && pc.Permissions != nil {
				got = pc.Permissions
			}
		}
	}
	if got == nil {
		t.Fatal("the switch journaled no permissions change")
	}
	if !reflect.DeepEqual(got.Plan, want) {
		t.Fatalf("the switch's plan differs from a session's:\n got  %+v\n want %+v", got.Plan, want)
	}
}
