package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/creack/pty"

	"github.com/docket-engine/docket/engine/uexec"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/proctree"
)

// ptyRows and ptyCols size an exec_command pty as a plain terminal.
const ptyRows, ptyCols = 24, 80

// startProcess runs exec_command's write-ahead record: it starts the
// process under the record's plan, hands it to the session's table under
// the record's session id, and polls it for the record's yield time.
func (r *ProcessRunner) startProcess(ctx context.Context, req RunRequest, sr sandbox.Request) (events.ExecOutcome, error) {
	pc := req.Process
	if r.Processes == nil {
		return events.ExecOutcome{ExitCode: -1, Error: "long-lived processes are not available here (the runner has no process table)"}, nil
	}
	for _, id := range pc.Evicts {
		r.Processes.Kill(id)
	}
	h, layers, err := r.spawn(ctx, sr, pc.Tty)
	var ue *sandbox.UnavailableError
	if errors.As(err, &ue) {
		return events.ExecOutcome{ExitCode: -1, SandboxError: ue.Error()}, nil
	}
	if err != nil {
		return events.ExecOutcome{ExitCode: -1, Error: err.Error()}, nil
	}
	if err := r.Processes.Add(pc.ID, h); err != nil {
		return events.ExecOutcome{ExitCode: -1, Error: err.Error()}, nil
	}
	res, err := r.Processes.Poll(ctx, pc.ID, "", msDuration(pc.YieldMs), streamTo(req.OnOutput))
	if err != nil {
		// Nothing may run that the journal does not account for: a call
		// cut off while it waited takes its process with it.
		r.Processes.Kill(pc.ID)
		return events.ExecOutcome{}, err
	}
	out := pollOutcome(req.CallID, req.Attempt, pc, res)
	out.Layers = layers
	return out, nil
}

// writeProcess runs write_stdin's write-ahead record: the exact characters
// it holds are written, then the process is polled.
func (r *ProcessRunner) writeProcess(ctx context.Context, req RunRequest) (events.ExecOutcome, error) {
	pc := req.Process
	if r.Processes == nil {
		return events.ExecOutcome{ExitCode: -1, Error: "long-lived processes are not available here (the runner has no process table)"}, nil
	}
	res, err := r.Processes.Poll(ctx, pc.ID, pc.Chars, msDuration(pc.YieldMs), streamTo(req.OnOutput))
	var unknown *uexec.UnknownError
	switch {
	case errors.As(err, &unknown), errors.Is(err, uexec.ErrStdinClosed):
		return events.ExecOutcome{ExitCode: -1, Error: err.Error(), Process: &events.ProcessPoll{ID: pc.ID}}, nil
	case err != nil && ctx.Err() == nil:
		return events.ExecOutcome{ExitCode: -1, Error: err.Error(), Process: &events.ProcessPoll{ID: pc.ID, Running: true}}, nil
	case err != nil:
		return events.ExecOutcome{}, err
	}
	return pollOutcome(req.CallID, req.Attempt, pc, res), nil
}

// spawn starts argv under the plan with pipes or a pty, in a process tree
// the returned Kill ends whole.
func (r *ProcessRunner) spawn(ctx context.Context, sr sandbox.Request, tty bool) (uexec.Handle, []string, error) {
	var master, slave, outR, outW *os.File
	var err error
	if tty {
		master, slave, err = pty.Open()
		if err != nil {
			return uexec.Handle{}, nil, fmt.Errorf("open a pty: %w", err)
		}
		_ = pty.Setsize(master, &pty.Winsize{Rows: ptyRows, Cols: ptyCols}) // a default size; programs cope without one
		outR, outW = master, slave
	} else if outR, outW, err = os.Pipe(); err != nil {
		return uexec.Handle{}, nil, fmt.Errorf("output pipe: %w", err)
	}
	closeAll := func() {
		for _, f := range []*os.File{outR, outW} {
			_ = f.Close() // error path: nothing was written through them
		}
	}
	wire := func(c *exec.Cmd) {
		c.Stdout, c.Stderr = outW, outW
		if tty {
			c.Stdin = slave
		}
	}
	var h uexec.Handle
	var layers []string
	if sr.Plan.Sandboxed() {
		sp, err := sandbox.Command(sr)
		if err != nil {
			closeAll()
			return h, nil, err
		}
		wire(sp.Cmd)
		if err := sp.Cmd.Start(); err != nil {
			sp.Release()
			closeAll()
			return h, nil, fmt.Errorf("start the sandbox helper: %w", err)
		}
		pid := sp.Cmd.Process.Pid
		// The helper runs in a session of its own (sandbox.Command), so
		// its process group holds everything outside its PID namespace,
		// and the namespace's end takes the rest.
		kill := func() { _ = syscall.Kill(-pid, syscall.SIGKILL) } // ESRCH once gone
		if layers, err = sp.Layers(ctx); err != nil {
			kill()
			_ = sp.Cmd.Wait() // reaping what was just killed
			sp.Release()
			closeAll()
			return h, nil, err
		}
		h = uexec.Handle{Cmd: sp.Cmd, Kill: kill, Release: sp.Release}
	} else {
		tree := proctree.New(proctree.Options{})
		cmd, wait, err := startHeld(tree, func() *exec.Cmd {
			c := exec.Command(sr.Argv[0], sr.Argv[1:]...)
			c.Dir, c.Env = sr.Cwd, unsandboxedEnv(sr.Env, sr.KeepSecretEnv)
			wire(c)
			c.SysProcAttr = leaderAttr()
			return c
		})
		if err != nil {
			_ = tree.Close()
			closeAll()
			return h, nil, fmt.Errorf("start %s: %w", sr.Argv[0], err)
		}
		layers = []string{tree.Mechanism().Layer()}
		h = uexec.Handle{Cmd: cmd, Wait: wait, Kill: func() { _ = tree.Kill() }, Release: func() { _ = tree.Close() }}
	}
	// The child holds its own copies; the parent keeps only its ends.
	_ = outW.Close()
	h.Output = outR
	if tty {
		h.Stdin = master
	}
	return h, layers, nil
}

// unsandboxedEnv is the environment of an unsandboxed process: the
// session's, or the process's own, without names that look secret.
func unsandboxedEnv(env []string, keepSecret bool) []string {
	if env == nil {
		env = os.Environ()
	}
	if keepSecret {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !sandbox.IsSecretName(name) {
			out = append(out, kv)
		}
	}
	return out
}

// pollOutcome turns what a poll collected into the call's outcome: the
// chunk bounded to the call's token budget, as the model will see it.
func pollOutcome(callID string, attempt int, pc *events.ProcessCall, res uexec.Result) events.ExecOutcome {
	text := strings.ToValidUTF8(string(res.Output), "\uFFFD")
	original := approxTokens(len(res.Output) + int(res.Dropped))
	text = truncateTokens(text, pc.MaxOutputTokens, res.Dropped)
	out := events.ExecOutcome{
		Output: text, DurationNs: res.Wall.Nanoseconds(), Truncated: res.Dropped > 0,
		Process: &events.ProcessPoll{ID: pc.ID, Running: !res.Exited, ChunkID: chunkID(callID, attempt), OriginalTokens: original},
	}
	if res.Exited {
		out.ExitCode, out.Signal = res.ExitCode, res.Signal
	}
	return out
}

// chunkID is a short name for one chunk, derived from its call so replay
// and the journal agree (Codex draws six random hex digits).
func chunkID(callID string, attempt int) string {
	sum := sha256.Sum256([]byte(callID + "/" + strconv.Itoa(attempt)))
	return hex.EncodeToString(sum[:3])
}

// approxTokens estimates tokens as Codex does: four bytes a token.
func approxTokens(n int) int { return (n + 3) / 4 }

// truncateTokens keeps the head and the tail of text within max tokens,
// saying how much was cut between them (Codex's middle truncation).
func truncateTokens(text string, max int, dropped int64) string {
	limit := max * 4
	if len(text) <= limit {
		if dropped > 0 {
			return fmt.Sprintf("…%d tokens truncated…\n", approxTokens(int(dropped))) + text
		}
		return text
	}
	head := limit / 2
	tail := limit - head
	for head > 0 && !utf8Start(text[head]) {
		head--
	}
	cut := len(text) - tail
	for cut < len(text) && !utf8Start(text[cut]) {
		cut++
	}
	removed := approxTokens(cut-head) + approxTokens(int(dropped))
	return text[:head] + fmt.Sprintf("…%d tokens truncated…", removed) + text[cut:]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// startHeld starts a command on a goroutine that keeps its OS thread until
// the command is reaped: the parent-death signal fires when the forking
// thread ends, not the process, so the thread must outlive the command.
func startHeld(tree *proctree.Tree, build func() *exec.Cmd) (*exec.Cmd, func() error, error) {
	type started struct {
		cmd *exec.Cmd
		err error
	}
	ch := make(chan started, 1)
	exited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		cmd, err := tree.Start(build)
		ch <- started{cmd, err}
		if err != nil {
			runtime.UnlockOSThread()
			return
		}
		exited <- cmd.Wait()
		runtime.UnlockOSThread()
	}()
	st := <-ch
	if st.err != nil {
		return nil, nil, st.err
	}
	var once sync.Once
	var werr error
	return st.cmd, func() error { once.Do(func() { werr = <-exited }); return werr }, nil
}

// streamTo hands a poll's output to the call's display callback.
func streamTo(onOutput func(stream string, chunk []byte)) func([]byte) {
	if onOutput == nil {
		return nil
	}
	return func(b []byte) { onOutput("stdout", b) }
}
