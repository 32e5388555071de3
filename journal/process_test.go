package journal

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSecondOpenerGetsInUseWithPID(t *testing.T) {
	home := t.TempDir()
	fx := buildJournal(t, home, testID, 20)
	holder := startChild(t, "hold", childPathEnv+"="+fx.path)
	ready := holder.line(t)
	pid := holder.cmd.Process.Pid
	if ready != fmt.Sprintf("ready %d", pid) {
		t.Fatalf("holder said %q", ready)
	}
	openers := []struct {
		name string
		open func() error
	}{
		{"Open", func() error { _, err := Open(fx.path); return err }},
		{"OpenReadOnly", func() error { _, err := OpenReadOnly(fx.path); return err }},
		{"Scan", func() error { _, err := scanAll(fx.path); return err }},
	}
	for _, o := range openers {
		begin := time.Now()
		err := o.open()
		t.Logf("%s refused after %v", o.name, time.Since(begin).Round(time.Millisecond))
		var iu *InUseError
		if !errors.As(err, &iu) {
			t.Fatalf("%s while another process holds the session: %v, want *InUseError", o.name, err)
		}
		if iu.PID != pid || iu.SessionID != testID || iu.Path != fx.path {
			t.Fatalf("%s: %+v, want pid %d session %s", o.name, iu, pid, testID)
		}
		want := fmt.Sprintf("session %s is in use by pid %d", testID, pid)
		if !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("%s: %q, want it to start %q", o.name, err, want)
		}
	}
	holder.stdin.Close()
	if err := holder.cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	j, err := Open(fx.path)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	j.Close()
}

// A writer killed with -9 leaves its pid file behind; the next holder of the
// lock is then someone else, and the error must not name the dead pid.
func TestStalePIDIsNotBlamed(t *testing.T) {
	home := t.TempDir()
	fx := buildJournal(t, home, testID, 3)
	holder := startChild(t, "hold", childPathEnv+"="+fx.path)
	holder.line(t)
	dead := holder.cmd.Process.Pid
	holder.cmd.Process.Signal(syscall.SIGKILL)
	holder.cmd.Wait()
	if readPID(fx.path) != 0 {
		t.Fatalf("readPID names dead pid %d", readPID(fx.path))
	}
	reader, err := OpenReadOnly(fx.path) // the lock is free again
	if err != nil {
		t.Fatalf("open after the holder was killed: %v", err)
	}
	defer reader.Close()
	_, err = Open(fx.path)
	var iu *InUseError
	if !errors.As(err, &iu) || iu.PID != 0 || strings.Contains(err.Error(), strconv.Itoa(dead)) {
		t.Fatalf("writer blocked by a reader: %v (pid %d is dead)", err, dead)
	}
	if want := "session " + testID + " is in use by another process"; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("%q, want it to start %q", err, want)
	}
}

// TestKill9KeepsEveryCommittedRecord kills a real writer with SIGKILL at
// different moments and checks that every record whose Commit returned is
// on disk, intact, and that the session can be resumed.
func TestKill9KeepsEveryCommittedRecord(t *testing.T) {
	moments := []struct {
		commits int           // reports to read before the kill
		pause   time.Duration // then wait this long, to land mid-commit
	}{
		{1, 0}, {4, 200 * time.Microsecond}, {25, 0}, {90, time.Millisecond}, {240, 0}, {400, 3 * time.Millisecond},
	}
	for _, m := range moments {
		t.Run(fmt.Sprintf("after_%d_commits", m.commits), func(t *testing.T) {
			home := t.TempDir()
			w := startChild(t, "writer", childHomeEnv+"="+home)
			var committed uint64
			report := func(l string) {
				n, err := strconv.ParseUint(strings.TrimPrefix(l, "committed "), 10, 64)
				if err != nil || n <= committed {
					t.Fatalf("child reported %q after %d", l, committed)
				}
				committed = n
			}
			for i := 0; i < m.commits; i++ {
				report(w.line(t))
			}
			time.Sleep(m.pause)
			if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			// Commits reported before the signal landed count too.
			for w.lines.Scan() {
				report(w.lines.Text())
			}
			err := w.cmd.Wait()
			if ws, ok := w.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child did not die of SIGKILL: %v", err)
			}
			path := SessionPath(home, testID, started())
			got, err := scanAll(path)
			if err != nil {
				t.Fatalf("Scan after kill -9: %v", err)
			}
			if uint64(len(got)) < committed {
				t.Fatalf("child reported seq %d committed, journal has %d records", committed, len(got))
			}
			for i, r := range got {
				if !reflect.DeepEqual(r, wantRecord(t, testID, uint64(i+1))) {
					t.Fatalf("record %d differs from what the child appended", i+1)
				}
			}
			t.Logf("killed after seq %d reported; %d records on disk", committed, len(got))
			// Resume: the writer's lock died with it.
			j, err := Open(path)
			if err != nil {
				t.Fatalf("resume after kill -9: %v", err)
			}
			if j.NextSeq() != uint64(len(got))+1 {
				t.Fatalf("resumed NextSeq %d, want %d", j.NextSeq(), len(got)+1)
			}
			appendSeq(t, j)
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			again, err := scanAll(path)
			if err != nil || len(again) != len(got)+1 {
				t.Fatalf("after resume: %d records (%v), want %d", len(again), err, len(got)+1)
			}
		})
	}
}
