package retry

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxWait bounds any parsed wait so that durations cannot overflow.
const maxWait = 24 * time.Hour

// ParseRetryAfter reads the server's requested wait from Retry-After-Ms
// (milliseconds, an OpenAI extension) or Retry-After (delay-seconds or an
// HTTP-date, RFC 9110 §10.2.3). now anchors HTTP-dates. It returns 0 when
// there is no usable header; a date in the past means no wait.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return min(time.Duration(min(ms, float64(maxWait/time.Millisecond))*float64(time.Millisecond)), maxWait)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, int64(maxWait/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxWait)
		}
	}
	return 0
}
