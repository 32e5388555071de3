package retry_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/model/retry"
)

var errBoom = errors.New("boom")

func recording(p retry.Policy, rnd float64) (retry.Policy, *[]time.Duration) {
	var waits []time.Duration
	p.Rand = func() float64 { return rnd }
	p.Sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	return p, &waits
}

func TestBackoffDoublesCapsAndJitters(t *testing.T) {
	for _, tc := range []struct {
		name string
		rnd  float64
		n    int
		want time.Duration
	}{
		{"first retry, no jitter", 0.5, 1, 100 * time.Millisecond},
		{"second retry doubles", 0.5, 2, 200 * time.Millisecond},
		{"capped at 10 s", 0.5, 12, 10 * time.Second},
		{"huge n stays capped", 0.5, 5000, 10 * time.Second},
		{"jitter -50 %", 0, 1, 50 * time.Millisecond},
		{"jitter +50 %", 1, 1, 150 * time.Millisecond},
		{"jitter applies after the cap", 1, 30, 15 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := recording(retry.Default(), tc.rnd)
			if got := p.Backoff(tc.n); got != tc.want {
				t.Errorf("Backoff(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
}

func TestDefaultJitterStaysInBounds(t *testing.T) {
	p := retry.Default()
	for i := 0; i < 1000; i++ {
		d := p.Backoff(1)
		if d < 50*time.Millisecond || d > 150*time.Millisecond {
			t.Fatalf("Backoff(1) = %v, outside 100 ms ± 50 %%", d)
		}
	}
}

func TestDo(t *testing.T) {
	for _, tc := range []struct {
		name         string
		errs         []error // per attempt; nil = success
		wantAttempts int
		wantWaits    []time.Duration
		wantErr      string
		exhausted    bool
	}{
		{"success at once", []error{nil}, 1, nil, "", false},
		{"transient then success", []error{retry.Transient(errBoom, 0), nil}, 2, []time.Duration{100 * time.Millisecond}, "", false},
		{"Retry-After replaces backoff", []error{retry.Transient(errBoom, 7*time.Second), nil}, 2, []time.Duration{7 * time.Second}, "", false},
		{"permanent fails at once", []error{errBoom}, 1, nil, "boom", false},
		{"three transients exhaust", []error{retry.Transient(errBoom, 0), retry.Transient(errBoom, 0), retry.Transient(errBoom, 0)}, 3,
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, "gave up after 3 attempt(s): boom", true},
		{"Retry-After beyond the limit gives up", []error{retry.Transient(errBoom, time.Hour)}, 1, nil, "server asked to wait 1h0m0s", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, waits := recording(retry.Default(), 0.5)
			attempts, err := p.Do(context.Background(), func(ctx context.Context, attempt int) error {
				return tc.errs[attempt-1]
			})
			if attempts != tc.wantAttempts {
				t.Errorf("attempts %d, want %d", attempts, tc.wantAttempts)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err %v, want %q", err, tc.wantErr)
			}
			var ex *retry.ExhaustedError
			if errors.As(err, &ex) != tc.exhausted {
				t.Errorf("exhausted = %v, want %v", !tc.exhausted, tc.exhausted)
			}
			if err != nil && !errors.Is(err, errBoom) {
				t.Errorf("err %v does not wrap the cause", err)
			}
			if len(*waits) != len(tc.wantWaits) {
				t.Fatalf("waits %v, want %v", *waits, tc.wantWaits)
			}
			for i, w := range tc.wantWaits {
				if (*waits)[i] != w {
					t.Errorf("wait %d = %v, want %v", i, (*waits)[i], w)
				}
			}
		})
	}
}

func TestDoStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := retry.Default()
	p.Rand = func() float64 { return 0.5 }
	calls := 0
	attempts, err := p.Do(ctx, func(ctx context.Context, attempt int) error {
		calls++
		cancel()
		return retry.Transient(errBoom, 0)
	})
	if attempts != 1 || calls != 1 || !errors.Is(err, context.Canceled) || !errors.Is(err, errBoom) {
		t.Errorf("attempts %d calls %d err %v, want one attempt and an error matching both causes", attempts, calls, err)
	}
}

func TestDoRealSleepHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := retry.Default()
	p.Initial = time.Hour
	_, err := p.Do(ctx, func(ctx context.Context, attempt int) error {
		if attempt == 1 {
			go cancel()
		}
		return retry.Transient(errBoom, 0)
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled while waiting", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    map[string]string
		want time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"HTTP-date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"HTTP-date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{"absurd milliseconds are capped", map[string]string{"Retry-After-Ms": "1e300"}, 24 * time.Hour},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"absent", nil, 0},
		{"absurd seconds are capped at a day", map[string]string{"Retry-After": "99999999999"}, 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.h {
				h.Set(k, v)
			}
			if got := retry.ParseRetryAfter(h, now); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"7", "0", "-1", "Sun, 22 Nov 2026 10:00:00 GMT", "1e400", "NaN", "99999999999999999999"} {
		f.Add(s, s)
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("Retry-After-Ms", ms)
		if d := retry.ParseRetryAfter(h, now); d < 0 {
			t.Errorf("negative wait %v for %q / %q", d, ra, ms)
		}
	})
}
