package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/docket-engine/docket/engine/model/retry"
)

// ErrNoCredentials means the provider wants a key and none was found.
var ErrNoCredentials = errors.New("no credentials")

// APIError is an HTTP error answer from the provider, with its own message.
type APIError struct {
	Provider   string
	StatusCode int
	Code       string // e.g. "insufficient_quota", "rate_limit_exceeded"
	Type       string
	Message    string
}

// Error names the provider, the status and the provider's own message.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model provider %s: HTTP %d", e.Provider, e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		fmt.Fprintf(&b, " %s", t)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	return b.String()
}

// Stream failure kinds.
const (
	StreamIdle       = "idle"       // nothing arrived within stream_idle_timeout_ms
	StreamTruncated  = "truncated"  // the stream ended before the response was complete
	StreamFailed     = "failed"     // the provider reported an error inside the stream
	StreamIncomplete = "incomplete" // the provider ended the response early (e.g. max tokens)
)

// StreamError is a failure after the provider accepted the request.
type StreamError struct {
	Provider string
	Kind     string // one of the Stream* kinds
	Code     string // the provider's error code, when it sent one
	Message  string
	Err      error // underlying transport error, if any
}

// Error names the provider, what went wrong and the provider's message.
func (e *StreamError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model provider %s: stream %s", e.Provider, e.Kind)
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the transport error, if any.
func (e *StreamError) Unwrap() error { return e.Err }

// permanentCodes are provider error codes that no retry can fix.
var permanentCodes = map[string]bool{
	"insufficient_quota":         true,
	"invalid_api_key":            true,
	"invalid_prompt":             true,
	"invalid_request_error":      true,
	"context_length_exceeded":    true,
	"model_not_found":            true,
	"billing_hard_limit_reached": true,
}

// transientStatus reports whether an HTTP status is worth retrying.
func transientStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// classifyRequestError turns an error from sending the request (before any
// event arrived) into a transient or permanent error for the retry loop.
func (p *Provider) classifyRequestError(err error) error {
	var tooLarge *ResponseTooLargeError
	if errors.As(err, &tooLarge) {
		return tooLarge
	}
	var aerr *sdk.Error
	if errors.As(err, &aerr) {
		e := &APIError{
			Provider:   p.cfg.Name,
			StatusCode: aerr.StatusCode,
			Code:       aerr.Code,
			Type:       aerr.Type,
			Message:    aerr.Message,
		}
		if e.Message == "" && aerr.Response != nil {
			e.Message = rawBody(aerr)
		}
		if transientStatus(aerr.StatusCode) && !permanentCodes[e.Code] && !permanentCodes[e.Type] {
			var after time.Duration
			if aerr.Response != nil {
				after = retry.ParseRetryAfter(aerr.Response.Header, p.now())
			}
			return retry.Transient(e, after)
		}
		return e
	}
	var serr *ssestream.StreamError
	if errors.As(err, &serr) {
		return p.streamFailure(StreamFailed, "", serr.Message, nil)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	// Anything else is the transport: refused, reset, DNS, TLS, EOF.
	return retry.Transient(fmt.Errorf("model provider %s: %w", p.cfg.Name, err), 0)
}

// streamFailure builds a StreamError, transient unless the code says otherwise.
func (p *Provider) streamFailure(kind, code, msg string, err error) error {
	e := &StreamError{Provider: p.cfg.Name, Kind: kind, Code: code, Message: msg, Err: err}
	if kind == StreamIncomplete || permanentCodes[code] || containsPermanentCode(msg) {
		return e
	}
	return retry.Transient(e, 0)
}

func containsPermanentCode(msg string) bool {
	for c := range permanentCodes {
		if strings.Contains(msg, c) {
			return true
		}
	}
	return false
}

// rawBody returns a short excerpt of a non-JSON error body.
func rawBody(aerr *sdk.Error) string {
	if aerr.Response == nil || aerr.Response.Body == nil {
		return ""
	}
	buf := make([]byte, 512)
	n, _ := aerr.Response.Body.Read(buf)
	return strings.TrimSpace(string(buf[:n]))
}
