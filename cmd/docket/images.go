package main

import (
	"errors"
	"os"

	"github.com/docket-engine/docket/engine/attach"
)

// imageDataURL reads an --image file into a data URL (attach.ImageDataURL:
// size and type checked by content); any trouble is a usage error.
func imageDataURL(path string) (string, error) {
	u, err := attach.ImageDataURL(path)
	if err == nil {
		return u, nil
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return "", usageErrorf("--image: %v", err)
	}
	return "", usageErrorf("--image %v", err)
}
