package attach

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/docket-engine/docket/events"
)

// Limits bound what the references of one prompt may attach.
type Limits struct {
	// MaxFileBytes is the most of one file attached; a longer file is cut
	// there and marked truncated.
	MaxFileBytes int64
	// MaxTotalBytes is the most attached by one prompt, all files
	// together; a prompt past it is refused.
	MaxTotalBytes int64
	// MaxRefs is the most references one prompt may hold.
	MaxRefs int
}

// DefaultLimits are Docket's caps: 256 KiB a file (about 64,000 tokens),
// 1 MiB a prompt, 32 references.
func DefaultLimits() Limits {
	return Limits{MaxFileBytes: 256 << 10, MaxTotalBytes: 1 << 20, MaxRefs: 32}
}

// Result is an expanded prompt.
type Result struct {
	// Text is the prompt with "@@" unescaped; references stay as written,
	// so the model sees which attachment the prompt meant.
	Text string
	// Attachments are the text files referenced, in order, each once.
	Attachments []events.Attachment
	// Images are the image files referenced, as data URLs.
	Images []string
	// Unresolved are the references (as written) that name no file: they
	// stay in the text as it is ("install @types/node"), and a caller
	// should say so, since a typo attaches nothing.
	Unresolved []string
}

// Errors a caller may branch on; a RefError wraps one of them or an
// error of the file system.
var (
	ErrOutside     = errors.New("it is outside the workspace")
	ErrBinary      = errors.New("it is a binary file, not text")
	ErrDirectory   = errors.New("it is a directory; name a file")
	ErrNotRegular  = errors.New("it is not a regular file")
	ErrTotal       = errors.New("the prompt's attachments exceed the total cap")
	ErrTooManyRefs = errors.New("too many @ references")
)

// RefError names the reference that could not be attached.
type RefError struct {
	Ref string // the reference as written, with its @
	Err error
}

func (e *RefError) Error() string {
	return fmt.Sprintf("%s: cannot attach: %v (write @@ for a literal @)", e.Ref, e.Err)
}

// Unwrap returns the cause.
func (e *RefError) Unwrap() error { return e.Err }

// Expand resolves the @ references of prompt against the workspace root
// and reads the files they name: text files become attachments (cut at
// the per-file cap), images become data URLs. A reference to no file at
// all stays text (Result.Unresolved). A reference that leads outside the
// workspace (by "..", an absolute path or a symlink, even to a missing
// file), to a directory or a binary file is refused with a *RefError; so
// is a prompt whose attachments pass the total cap.
func Expand(root, prompt string, lim Limits) (Result, error) {
	text, refs, err := Parse(prompt)
	if err != nil {
		return Result{}, err
	}
	if lim.MaxRefs > 0 && len(refs) > lim.MaxRefs {
		return Result{}, fmt.Errorf("%w: the prompt has %d; the limit is %d", ErrTooManyRefs, len(refs), lim.MaxRefs)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Result{}, fmt.Errorf("workspace %s: %w", root, err)
	}
	res := Result{Text: text}
	var total int64
	seen := map[string]bool{}
	for _, r := range refs {
		token := prompt[r.Start:r.End]
		rel, real, err := resolve(root, realRoot, r.Path)
		if errors.Is(err, fs.ErrNotExist) {
			res.Unresolved = append(res.Unresolved, token)
			continue
		}
		if err != nil {
			return Result{}, &RefError{Ref: token, Err: err}
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		att, image, err := read(realRoot, rel, real, lim.MaxFileBytes)
		if err != nil {
			return Result{}, &RefError{Ref: token, Err: err}
		}
		if image != "" {
			res.Images = append(res.Images, image)
			continue
		}
		total += int64(len(att.Content))
		if lim.MaxTotalBytes > 0 && total > lim.MaxTotalBytes {
			return Result{}, &RefError{Ref: token, Err: fmt.Errorf("%w: %d bytes with this file; the limit is %d", ErrTotal, total, lim.MaxTotalBytes)}
		}
		res.Attachments = append(res.Attachments, att)
	}
	return res, nil
}

// resolve returns the reference's path relative to the workspace (as the
// attachment names it) and where it really leads, refusing any that
// leaves the workspace lexically or through a symlink.
func resolve(root, realRoot, ref string) (rel, real string, err error) {
	p := ref
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	rel, err = filepath.Rel(root, p)
	if err != nil || !local(rel) {
		return "", "", ErrOutside
	}
	real, err = filepath.EvalSymlinks(p)
	if err != nil {
		return "", "", err
	}
	if r, err := filepath.Rel(realRoot, real); err != nil || !local(r) {
		return "", "", fmt.Errorf("%w (it leads to %s)", ErrOutside, real)
	}
	return filepath.ToSlash(rel), real, nil
}

// local reports whether a relative path stays inside its base.
func local(rel string) bool {
	return rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// sniffBytes is how much of a file decides whether it is text, as git
// looks at the first 8,000 bytes.
const sniffBytes = 8000

// read reads one referenced file, opened below the real root (see
// openBeneath): an image as a data URL, a text file as an attachment cut
// at max bytes (on a UTF-8 boundary).
func read(realRoot, rel, real string, max int64) (events.Attachment, string, error) {
	under, err := filepath.Rel(realRoot, real)
	if err != nil {
		return events.Attachment{}, "", ErrOutside
	}
	f, err := openBeneath(realRoot, under)
	if err != nil {
		return events.Attachment{}, "", err
	}
	defer func() { _ = f.Close() }() // read-only
	info, err := f.Stat()
	if err != nil {
		return events.Attachment{}, "", err
	}
	if info.IsDir() {
		return events.Attachment{}, "", ErrDirectory
	}
	if !info.Mode().IsRegular() {
		return events.Attachment{}, "", ErrNotRegular
	}
	limit := max
	if limit <= 0 {
		limit = info.Size()
	}
	head := make([]byte, min(int64(sniffBytes), info.Size()))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return events.Attachment{}, "", err
	}
	head = head[:n]
	if typ := http.DetectContentType(head); slices.Contains(imageTypes(), typ) {
		url, err := imageDataURLOf(f, real, info)
		return events.Attachment{}, url, err
	}
	if bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(trimPartialRune(head)) {
		return events.Attachment{}, "", ErrBinary
	}
	rest, err := io.ReadAll(io.LimitReader(f, max0(limit-int64(n))))
	if err != nil {
		return events.Attachment{}, "", err
	}
	content := append(head, rest...)
	truncated := int64(len(content)) > limit || info.Size() > int64(len(content))
	if int64(len(content)) > limit {
		content = content[:limit]
	}
	if truncated {
		content = trimPartialRune(content)
	}
	if bytes.IndexByte(content, 0) >= 0 || !utf8.Valid(content) {
		return events.Attachment{}, "", ErrBinary
	}
	return events.Attachment{Path: rel, Content: string(content), Size: info.Size(), Truncated: truncated}, "", nil
}

func max0(n int64) int64 { return max(n, 0) }

// trimPartialRune drops an incomplete UTF-8 sequence cut off at the end.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b // ASCII: nothing cut
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
