package replay_test

import (
	"time"

	"github.com/docket-engine/docket/events"
)

func nowish() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }

func atOf(r events.Record) time.Time { return time.Unix(0, r.At) }
