package openai

import (
	"fmt"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3/option"
)

// MaxResponseBytes bounds what Docket reads of one model response, on the
// wire (every server-sent event counted, deltas included): 16 MiB. A real
// model's answer is bounded by its output tokens (128k tokens are well under
// 2 MiB even streamed twice), so a longer stream is a broken or hostile
// server; reading it would hold it in memory, journal it, and send it back
// with every later request. It also stays under the SDK's 32 MiB line
// limit, whose bare "bufio.Scanner: token too long" it replaces. There is
// no config key: no legitimate response comes near it.
const MaxResponseBytes = 16 << 20

// ResponseTooLargeError says a model response passed MaxResponseBytes. It
// is permanent: the same request gets the same answer, so it is not retried.
type ResponseTooLargeError struct {
	Provider string
	Limit    int64
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("model provider %s: the response is longer than %d MiB, the most Docket reads of one model response (openai.MaxResponseBytes, no config key); not retried, since the same request would get the same answer",
		e.Provider, e.Limit>>20)
}

// limitResponses is the middleware that ends every response body with a
// ResponseTooLargeError once more than limit bytes were read from it.
func limitResponses(provider string, limit int64) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if err != nil || resp == nil || resp.Body == nil {
			return resp, err
		}
		resp.Body = &limitedBody{body: resp.Body, left: limit, err: &ResponseTooLargeError{Provider: provider, Limit: limit}}
		return resp, nil
	}
}

// limitedBody reads at most left bytes of body, then fails with err.
type limitedBody struct {
	body io.ReadCloser
	left int64
	err  error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more says whether the body really goes on: a response
		// of exactly the limit is not too large.
		var one [1]byte
		n, err := b.body.Read(one[:])
		switch {
		case n > 0:
			return 0, b.err
		case err == nil:
			return 0, nil // nothing yet: the caller reads again
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }
