package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// reset forgets what was shown so far, so waiting stays cheap over a long
// session.
func (s *ttyScreen) reset() {
	s.mu.Lock()
	s.raw.Reset()
	s.mu.Unlock()
}

// procStatusKiB reads a VmRSS/VmHWM-style field of /proc/PID/status.
func procStatusKiB(b *testing.B, pid int, field string) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// BenchmarkChatKeystrokeEcho is keystroke-to-render latency through the
// built binary on a pty: one character typed, until the terminal shows
// the input line with it (Bubble Tea renders at most 60 frames a second,
// so a frame's wait is part of it). It is measured in a fresh session and
// after 1,000 scripted turns (real engine, real journal), and reports the
// process's resident memory after them.
func BenchmarkChatKeystrokeEcho(b *testing.B) {
	bin := cliBinary(b)
	for _, turns := range []int{0, 1000} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			dir := b.TempDir()
			ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
			if err := os.Mkdir(ws, 0o755); err != nil {
				b.Fatal(err)
			}
			var script strings.Builder
			for i := range turns {
				fmt.Fprintf(&script, `{"output":[{"type":"message","content":"Answer number %d, with some **markdown** in it."}],"usage":{"input_tokens":%d,"output_tokens":12}}`+"\n", i, 1000+i*20)
			}
			sp := filepath.Join(dir, "script.jsonl")
			if err := os.WriteFile(sp, []byte(script.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			r := startChat(b, bin, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", sp)
			r.scr.waitFor(b, 0, "approvals")
			for i := range turns {
				r.scr.reset()
				r.typeLine(fmt.Sprintf("prompt %d", i))
				r.scr.waitFor(b, 0, fmt.Sprintf("Answer number %d,", i))
			}
			r.scr.reset()
			rss := procStatusKiB(b, r.cmd.Process.Pid, "VmRSS") / 1024
			peak := procStatusKiB(b, r.cmd.Process.Pid, "VmHWM") / 1024
			typed := ""
			for i := 0; b.Loop(); i++ {
				if len(typed) == 60 {
					b.StopTimer()
					r.keys("\x15") // Ctrl-U clears the line
					typed = ""
					r.scr.waitFor(b, 0, "› Ask Docket")
					r.scr.reset()
					b.StartTimer()
				}
				c := string(rune('a' + i%26))
				typed += c
				r.keys(c)
				r.scr.waitFor(b, 0, "› "+typed)
			}
			b.ReportMetric(rss, "rss-MiB")
			b.ReportMetric(peak, "peak-rss-MiB")
			r.keys("\x03")
		})
	}
}
