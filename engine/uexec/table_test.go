package uexec

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startPiped starts argv with its output on a pipe, as the runner does
// for a process without a tty.
func startPiped(t *testing.T, tb *Table, id int, argv ...string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	pid := cmd.Process.Pid
	if err := tb.Add(id, Handle{Cmd: cmd, Output: r, Kill: func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }, Release: func() {}}); err != nil {
		t.Fatal(err)
	}
}

func TestAPollStreamsWhatItCollects(t *testing.T) {
	tb := &Table{}
	defer tb.Close()
	startPiped(t, tb, 7, "sh", "-c", "echo one; sleep 0.2; echo two")
	var mu sync.Mutex
	var streamed strings.Builder
	res, err := tb.Poll(context.Background(), 7, "", time.Minute, func(b []byte) {
		mu.Lock()
		streamed.Write(b)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exited || res.ExitCode != 0 || string(res.Output) != "one\ntwo\n" {
		t.Fatalf("result %+v (%q)", res, res.Output)
	}
	if streamed.String() != "one\ntwo\n" {
		t.Fatalf("streamed %q, collected %q", streamed.String(), res.Output)
	}
	if _, err := tb.Poll(context.Background(), 7, "", time.Second, nil); err == nil {
		t.Fatal("a collected exit left the process in the table")
	}
}

func TestTheBufferKeepsTheNewestMegabyteAndCountsTheRest(t *testing.T) {
	b := newBuffer()
	chunk := make([]byte, 300_000)
	for i := 0; i < 5; i++ {
		b.write(chunk)
	}
	// A poll starting now streams what is buffered (no poll took it), and
	// nothing more once it has.
	got, seen := b.since(b.start())
	if len(got) != MaxBufferedBytes {
		t.Fatalf("a watcher starting now saw %d bytes", len(got))
	}
	if again, _ := b.since(seen); len(again) != 0 {
		t.Fatalf("streamed %d bytes twice", len(again))
	}
	data, dropped := b.take()
	if len(data) != MaxBufferedBytes || dropped != 5*300_000-MaxBufferedBytes {
		t.Fatalf("kept %d, dropped %d", len(data), dropped)
	}
}

func TestWritesToAProcessWithoutStdinAndToAClosedTableAreRefused(t *testing.T) {
	tb := &Table{}
	startPiped(t, tb, 1, "sleep", "30")
	if _, err := tb.Poll(context.Background(), 1, "x", time.Millisecond, nil); err != ErrStdinClosed {
		t.Fatalf("err %v, want ErrStdinClosed", err)
	}
	tb.Close()
	if live := tb.Live(); len(live) != 0 {
		t.Fatalf("live after Close: %v", live)
	}
	r, w, _ := os.Pipe()
	cmd := exec.Command("true")
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := tb.Add(2, Handle{Cmd: cmd, Output: r, Kill: func() {}, Release: func() {}}); err != ErrClosed {
		t.Fatalf("err %v, want ErrClosed", err)
	}
}
