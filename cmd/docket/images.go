package main

import (
	"encoding/base64"
	"net/http"
	"os"
	"slices"
)

// maxImageBytes bounds one -i image: the Responses API takes up to 20 MB
// an image, and the image is journaled with the prompt.
const maxImageBytes = 20 << 20

// imageTypes are the image types the Responses API accepts.
func imageTypes() []string { return []string{"image/png", "image/jpeg", "image/gif", "image/webp"} }

// imageDataURL reads an image file into a data URL, checking its size and
// its type by content (not by name).
func imageDataURL(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", usageErrorf("--image: %v", err)
	}
	if !info.Mode().IsRegular() {
		return "", usageErrorf("--image %s is not a regular file", path)
	}
	if info.Size() > maxImageBytes {
		return "", usageErrorf("--image %s is %d bytes; the limit is %d (20 MiB)", path, info.Size(), maxImageBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", usageErrorf("--image: %v", err)
	}
	typ := http.DetectContentType(b)
	if !slices.Contains(imageTypes(), typ) {
		return "", usageErrorf("--image %s is %s, not a png, jpeg, gif or webp image", path, typ)
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}
