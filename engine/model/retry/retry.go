// Package retry runs an operation again after transient failures, waiting
// between attempts with capped exponential backoff and jitter, or for as
// long as the server asked (Retry-After). Permanent failures end it at once.
package retry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Policy says how often and how patiently to retry. Use Default and adjust;
// fields are used as they are, so a zero Jitter means no jitter.
type Policy struct {
	// MaxAttempts counts every attempt, the first included; below 1 means 1.
	MaxAttempts int
	// Initial is the backoff before the first retry.
	Initial time.Duration
	// Max caps the backoff before jitter is applied.
	Max time.Duration
	// Multiplier grows the backoff after each retry.
	Multiplier float64
	// Jitter spreads each backoff uniformly over ±Jitter of its value.
	Jitter float64
	// MaxRetryAfter is the longest server-requested wait honoured; a longer
	// one ends the retries with the server's error.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx ends; nil waits on a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a uniform value in [0, 1); nil uses math/rand/v2.
	Rand func() float64
}

// Default is 3 attempts, 100 ms doubling to 10 s, ±50 % jitter, and
// Retry-After honoured up to two minutes.
func Default() Policy {
	return Policy{
		MaxAttempts:   3,
		Initial:       100 * time.Millisecond,
		Max:           10 * time.Second,
		Multiplier:    2,
		Jitter:        0.5,
		MaxRetryAfter: 2 * time.Minute,
	}
}

// TransientError marks a failure worth another attempt. RetryAfter, when
// positive, is the wait the server asked for.
type TransientError struct {
	Err        error
	RetryAfter time.Duration
}

// Error is the underlying failure's message.
func (e *TransientError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying failure.
func (e *TransientError) Unwrap() error { return e.Err }

// Transient marks err as retryable, with the server-requested wait (0 for none).
func Transient(err error, retryAfter time.Duration) error {
	if err == nil {
		return nil
	}
	return &TransientError{Err: err, RetryAfter: retryAfter}
}

// ExhaustedError reports that every attempt failed transiently, or that the
// server asked for a longer wait than the policy allows.
type ExhaustedError struct {
	Attempts int
	Err      error // the last attempt's failure
	// Wait is set when the server's Retry-After exceeded MaxRetryAfter.
	Wait time.Duration
}

// Error says how many attempts were made and why the last one failed.
func (e *ExhaustedError) Error() string {
	if e.Wait > 0 {
		return fmt.Sprintf("gave up after %d attempt(s): server asked to wait %s: %v", e.Attempts, e.Wait, e.Err)
	}
	return fmt.Sprintf("gave up after %d attempt(s): %v", e.Attempts, e.Err)
}

// Unwrap returns the last attempt's failure.
func (e *ExhaustedError) Unwrap() error { return e.Err }

// Backoff is the jittered wait before retry number n (1 for the first retry).
func (p Policy) Backoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	base := float64(p.Initial) * math.Pow(p.Multiplier, float64(n-1))
	if p.Max > 0 && (base > float64(p.Max) || math.IsInf(base, 1) || math.IsNaN(base)) {
		base = float64(p.Max)
	}
	r := 0.5
	if p.Rand != nil {
		r = p.Rand()
	} else if p.Jitter != 0 {
		r = rand.Float64()
	}
	d := base * (1 + p.Jitter*(2*r-1))
	if d < 0 {
		d = 0
	}
	return time.Duration(d)
}

// Do calls op until it succeeds, fails permanently (an error that is not a
// *TransientError), the attempts run out, or ctx ends (the error then
// matches ctx.Err()). It returns how many attempts were made. op receives
// the 1-based attempt number.
func (p Policy) Do(ctx context.Context, op func(ctx context.Context, attempt int) error) (int, error) {
	maxAttempts := max(p.MaxAttempts, 1)
	for attempt := 1; ; attempt++ {
		err := op(ctx, attempt)
		if err == nil {
			return attempt, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			// Callers branch on cancellation, so make it visible either way.
			if errors.Is(err, cerr) {
				return attempt, err
			}
			return attempt, fmt.Errorf("%w (last attempt: %w)", cerr, err)
		}
		var te *TransientError
		if !errors.As(err, &te) {
			return attempt, err
		}
		if attempt >= maxAttempts {
			return attempt, &ExhaustedError{Attempts: attempt, Err: err}
		}
		wait := p.Backoff(attempt)
		if te.RetryAfter > 0 {
			if p.MaxRetryAfter > 0 && te.RetryAfter > p.MaxRetryAfter {
				return attempt, &ExhaustedError{Attempts: attempt, Err: err, Wait: te.RetryAfter}
			}
			wait = te.RetryAfter
		}
		if err := p.sleep(ctx, wait); err != nil {
			return attempt, fmt.Errorf("waiting %s before attempt %d: %w", wait, attempt+1, err)
		}
	}
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
