package uexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// drainGrace bounds how long a poll that saw the process exit waits for
// the last of its output: everything that held the output open was killed
// with the process's tree, so the reader normally ends at once.
const drainGrace = 2 * time.Second

// Handle is a started process handed to a Table.
type Handle struct {
	// Cmd has been started; the Table waits for it.
	Cmd *exec.Cmd
	// Stdin is where write_stdin writes (a pty's master); nil when the
	// process's standard input is closed (pipes, as Codex runs them).
	Stdin *os.File
	// Output carries the process's stdout and stderr (a pty's master, or
	// a pipe's read end); the Table reads it to the end and closes it.
	Output *os.File
	// Kill ends the process and everything it started; safe to call more
	// than once and after it exited.
	Kill func()
	// Release frees what starting it held, once it has exited.
	Release func()
	// Wait, when set, reaps the process instead of Cmd.Wait (a starter
	// that must reap on the thread that forked it).
	Wait func() error
}

// Result is what one poll collected.
type Result struct {
	Output []byte
	// Dropped counts bytes lost to MaxBufferedBytes since the last poll.
	Dropped int64
	// Exited: the process has exited (and left the table).
	Exited   bool
	ExitCode int
	Signal   string
	Wall     time.Duration
}

// UnknownError is a session id the table does not hold: never started,
// already exited and collected, or killed.
type UnknownError struct{ ID int }

func (e *UnknownError) Error() string { return fmt.Sprintf("Unknown process id %d", e.ID) }

// ErrStdinClosed is a write to a process started without a tty, whose
// standard input is closed (Codex's rule).
var ErrStdinClosed = errors.New("stdin is closed for this session; rerun exec_command with tty=true to keep stdin open")

// ErrClosed is a start on a table whose session has ended.
var ErrClosed = errors.New("the session's processes were ended")

// Table is one session's live processes, by session id. The zero value is
// ready; Close ends every process it holds.
type Table struct {
	mu     sync.Mutex
	procs  map[int]*proc
	closed bool
}

type proc struct {
	h    Handle
	out  *buffer
	busy sync.Mutex // one poll at a time
	done chan struct{}
	// Set before done closes.
	exitCode int
	signal   string
}

// Add takes over a started process under session id id.
func (t *Table) Add(id int, h Handle) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		h.Kill()
		if h.Wait != nil {
			_ = h.Wait() // reaping a process killed just now; its status is not wanted
		} else {
			_ = h.Cmd.Wait() // reaping a process killed just now; its status is not wanted
		}
		h.Release()
		return ErrClosed
	}
	if t.procs == nil {
		t.procs = map[int]*proc{}
	}
	if _, dup := t.procs[id]; dup {
		t.mu.Unlock()
		return fmt.Errorf("uexec: session id %d is already in use", id)
	}
	p := &proc{h: h, out: newBuffer(), done: make(chan struct{})}
	t.procs[id] = p
	t.mu.Unlock()
	go p.read()
	go p.wait()
	return nil
}

func (p *proc) read() {
	buf := make([]byte, 32*1024)
	for {
		n, err := p.h.Output.Read(buf)
		if n > 0 {
			p.out.write(buf[:n])
		}
		if err != nil {
			// EOF on a pipe, EIO on a pty master once every slave closed.
			break
		}
	}
	_ = p.h.Output.Close() // a read end: nothing to flush
	p.out.close()
}

func (p *proc) wait() {
	wait := p.h.Cmd.Wait
	if p.h.Wait != nil {
		wait = p.h.Wait
	}
	err := wait()
	p.exitCode, p.signal = exitStatus(p.h.Cmd, err)
	// What it left behind (a daemon it forked) goes with it: nothing of
	// a call outlives the process the session knows about.
	p.h.Kill()
	if p.h.Stdin != nil && p.h.Stdin != p.h.Output {
		_ = p.h.Stdin.Close() // the process is gone: nothing will read it
	}
	p.h.Release()
	close(p.done)
}

func exitStatus(cmd *exec.Cmd, err error) (int, string) {
	st := cmd.ProcessState
	if st == nil {
		return -1, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal().String()
	}
	_ = err // the status says it all
	return st.ExitCode(), ""
}

func (t *Table) get(id int) (*proc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.procs[id]
	if !ok {
		return nil, &UnknownError{ID: id}
	}
	return p, nil
}

// Poll writes chars to process id (when not empty), then collects its
// output until yield has passed or it exited. A process seen to exit
// leaves the table. A cancelled ctx stops the poll (the process stays).
// onOutput, when set, is handed each piece of output as it arrives during
// the poll (for display), never after Poll returns.
func (t *Table) Poll(ctx context.Context, id int, chars string, yield time.Duration, onOutput func([]byte)) (Result, error) {
	p, err := t.get(id)
	if err != nil {
		return Result{}, err
	}
	p.busy.Lock()
	defer p.busy.Unlock()
	start := time.Now()
	if chars != "" {
		if p.h.Stdin == nil {
			return Result{}, ErrStdinClosed
		}
		select {
		case <-p.done:
			// Exited before the write: the outcome says so below.
		default:
			if _, err := io.WriteString(p.h.Stdin, chars); err != nil {
				return Result{}, fmt.Errorf("write to process %d: %w", id, err)
			}
		}
	}
	timer := time.NewTimer(yield)
	defer timer.Stop()
	exited := false
	seen := p.out.start()
	stream := func() {
		if onOutput == nil {
			return
		}
		var chunk []byte
		if chunk, seen = p.out.since(seen); len(chunk) > 0 {
			onOutput(chunk)
		}
	}
wait:
	for {
		more, _ := p.out.wake()
		select {
		case <-p.done:
			exited = true
			break wait
		case <-timer.C:
			break wait
		case <-ctx.Done():
			return Result{}, ctx.Err()
		case <-more:
			stream()
		}
	}
	if exited {
		p.drain()
	}
	stream()
	data, dropped := p.out.take()
	r := Result{Output: data, Dropped: dropped, Wall: time.Since(start)}
	if exited {
		r.Exited, r.ExitCode, r.Signal = true, p.exitCode, p.signal
		t.mu.Lock()
		delete(t.procs, id)
		t.mu.Unlock()
	}
	return r, nil
}

// drain waits, briefly, for the reader to reach the end of the output.
func (p *proc) drain() {
	deadline := time.NewTimer(drainGrace)
	defer deadline.Stop()
	for {
		more, eof := p.out.wake()
		if eof {
			return
		}
		select {
		case <-more:
		case <-deadline.C:
			return
		}
	}
}

// Kill ends process id and waits for it; an unknown id is no error (it
// exited already).
func (t *Table) Kill(id int) {
	t.mu.Lock()
	p, ok := t.procs[id]
	delete(t.procs, id)
	t.mu.Unlock()
	if ok {
		p.h.Kill()
		<-p.done
	}
}

// Live returns the session ids of the processes the table holds.
func (t *Table) Live() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]int, 0, len(t.procs))
	for id := range t.procs {
		out = append(out, id)
	}
	return out
}

// Close kills every process and refuses new ones: the session is over.
func (t *Table) Close() error {
	t.mu.Lock()
	t.closed = true
	procs := t.procs
	t.procs = nil
	t.mu.Unlock()
	for _, p := range procs {
		p.h.Kill()
	}
	for _, p := range procs {
		<-p.done
	}
	return nil
}
