package main

import (
	"errors"
	"testing"
)

func TestClosingReportsACloseFailureWithoutLosingTheExitCode(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk full")
	cmdErr := errors.New("turn failed")
	tests := []struct {
		name     string
		before   error
		closeErr error
		wantCode int // 0: not an exitError
		wantIs   []error
	}{
		{name: "a clean close changes nothing", before: nil, closeErr: nil},
		{name: "a close failure fails a successful command", closeErr: boom, wantIs: []error{boom}},
		{name: "a close failure joins a plain error", before: cmdErr, closeErr: boom, wantIs: []error{cmdErr, boom}},
		{name: "a close failure keeps the exit code", before: &exitError{code: exitParked}, closeErr: boom,
			wantCode: exitParked, wantIs: []error{boom}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.before
			closing(&err, "the journal", func() error { return tt.closeErr })
			if tt.before == nil && tt.closeErr == nil {
				if err != nil {
					t.Fatalf("err = %v; want nil", err)
				}
				return
			}
			for _, want := range tt.wantIs {
				if !errors.Is(err, want) {
					t.Errorf("err = %v; want it to wrap %v", err, want)
				}
			}
			var ee *exitError
			if got := errors.As(err, &ee); got != (tt.wantCode != 0) || (got && ee.code != tt.wantCode) {
				t.Errorf("err = %#v; want exit code %d", err, tt.wantCode)
			}
		})
	}
}
