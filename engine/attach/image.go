package attach

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxImageBytes bounds one image: the Responses API takes up to 20 MB an
// image, and the image is journaled with the prompt.
const MaxImageBytes = 20 << 20

// imageTypes are the image types the Responses API accepts.
func imageTypes() []string { return []string{"image/png", "image/jpeg", "image/gif", "image/webp"} }

// ErrNotImage is returned for a file whose content is no accepted image.
var ErrNotImage = errors.New("not a png, jpeg, gif or webp image")

// ImageDataURL reads an image file into a data URL, checking its size and
// its type by content (not by name). Errors name the path.
func ImageDataURL(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read-only
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	return imageDataURLOf(f, path, info)
}

// imageDataURLOf reads the open image file f (named path) whole.
func imageDataURLOf(f *os.File, path string, info os.FileInfo) (string, error) {
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if info.Size() > MaxImageBytes {
		return "", fmt.Errorf("%s is %d bytes; the limit is %d (20 MiB)", path, info.Size(), MaxImageBytes)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
	if err != nil {
		return "", err
	}
	typ := http.DetectContentType(b)
	if !slices.Contains(imageTypes(), typ) {
		return "", fmt.Errorf("%s is %s: %w", path, typ, ErrNotImage)
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}

// PastedImage reports whether pasted text is the path of an image file, as
// a terminal pastes a dropped file: possibly quoted, with backslash-escaped
// spaces, or as a file:// URL; a relative path is taken from root. It
// returns the cleaned path, for ImageDataURL. Any readable image path is
// accepted, inside the workspace or not (screenshots live elsewhere).
func PastedImage(text, root string) (string, bool) {
	p := strings.TrimSpace(text)
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	} else {
		p = strings.ReplaceAll(p, `\ `, " ")
	}
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil {
			return "", false
		}
		p = u.Path
	}
	if p == "" || strings.ContainsAny(p, "\n\r") {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() || info.Size() > MaxImageBytes {
		return "", false
	}
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer func() { _ = f.Close() }() // read-only
	head := make([]byte, 512)
	n, _ := f.Read(head)
	return p, slices.Contains(imageTypes(), http.DetectContentType(head[:n]))
}
