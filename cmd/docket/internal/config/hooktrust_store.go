package config

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// HookTrustFile is the file under Docket's home that holds the project
// hooks the user trusted (docket hooks trust). It lives in the user's home,
// never in the project: a project cannot trust its own hooks.
const HookTrustFile = "hook_trust.json"

// hookTrustVersion is the format of HookTrustFile.
const hookTrustVersion = 1

// HookTrust is one trusted project hook: its identity (the project config
// file, the stage and the name) and the hash of the definition the user
// reviewed (HookReview.Hash).
type HookTrust struct {
	File  string `json:"file"`
	Stage string `json:"stage"`
	Name  string `json:"name"`
	Hash  string `json:"hash"`
	// TrustedAt is when the user trusted it (RFC 3339), for people.
	TrustedAt string `json:"trusted_at,omitempty"`
}

// hookTrustDoc is HookTrustFile's content.
type hookTrustDoc struct {
	Version int         `json:"version"`
	Hooks   []HookTrust `json:"hooks"`
}

// ReadHookTrust reads the trust file at path; a missing file trusts
// nothing. A file it cannot read or decode is an *Error naming it: it is
// never overwritten or ignored, since either would lose the user's review.
func ReadHookTrust(path string) ([]HookTrust, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Source: path, Msg: fmt.Sprintf("cannot read the hook trust file: %v", err), Err: err}
	}
	list, err := decodeHookTrust(data)
	if err != nil {
		return nil, &Error{Source: path, Err: err,
			Msg: fmt.Sprintf("the hook trust file is damaged (%v); Docket leaves it as it is: fix it, or move it away and trust the project's hooks again with `docket hooks trust`", err)}
	}
	return list, nil
}

// decodeHookTrust decodes the trust file strictly: one JSON object of the
// known version, known fields only, every record complete.
func decodeHookTrust(data []byte) ([]HookTrust, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc hookTrustDoc
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the JSON object")
	}
	if doc.Version != hookTrustVersion {
		return nil, fmt.Errorf("version %d, want %d", doc.Version, hookTrustVersion)
	}
	for i, h := range doc.Hooks {
		switch {
		case h.File == "" || !filepath.IsAbs(h.File):
			return nil, fmt.Errorf("hook %d: file %q is not an absolute path", i+1, h.File)
		case h.Stage != "pre_tool" && h.Stage != "post_tool":
			return nil, fmt.Errorf("hook %d: stage %q is not pre_tool or post_tool", i+1, h.Stage)
		case h.Name == "":
			return nil, fmt.Errorf("hook %d: no name", i+1)
		case !validHookHash(h.Hash):
			return nil, fmt.Errorf("hook %d: hash %q is not sha256: and 64 hex digits", i+1, h.Hash)
		}
	}
	return doc.Hooks, nil
}

func validHookHash(s string) bool {
	hexPart, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hexPart) != 64 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil
}

// trusted reports whether list trusts the reviewed hook as it is now.
func trusted(list []HookTrust, r HookReview) (known, same bool) {
	for _, t := range list {
		if t.File == r.File && t.Stage == r.Stage && t.Name == r.Name {
			known = true
			if t.Hash == r.Hash {
				return true, true
			}
		}
	}
	return known, false
}

// TrustHooks records that the user trusted the reviewed hooks as they are
// now, in home's HookTrustFile: read under a lock, the hooks' earlier
// records replaced, written whole through a temporary file and a rename.
// A damaged file is an error and stays as it is.
func TrustHooks(home string, reviews []HookReview, now time.Time) error {
	path := filepath.Join(home, HookTrustFile)
	unlock, err := LockFile(path)
	if err != nil {
		return &Error{Source: path, Msg: fmt.Sprintf("cannot lock the hook trust file: %v", err), Err: err}
	}
	defer unlock()
	list, err := ReadHookTrust(path)
	if err != nil {
		return err
	}
	for _, r := range reviews {
		list = slices.DeleteFunc(list, func(t HookTrust) bool { return t.File == r.File && t.Stage == r.Stage && t.Name == r.Name })
		list = append(list, HookTrust{File: r.File, Stage: r.Stage, Name: r.Name, Hash: r.Hash, TrustedAt: now.UTC().Format(time.RFC3339)})
	}
	if list == nil {
		list = []HookTrust{}
	}
	b, err := json.MarshalIndent(hookTrustDoc{Version: hookTrustVersion, Hooks: list}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := WriteFileAtomic(path, string(b)+"\n"); err != nil {
		return &Error{Source: path, Msg: fmt.Sprintf("cannot write the hook trust file: %v", err), Err: err}
	}
	return nil
}
