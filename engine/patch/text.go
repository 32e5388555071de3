package patch

import (
	"bytes"
	"strings"
)

const bom = "\uFEFF"

// textFile is a file's content split into lines, with what is needed to
// write it back the way it was: its line ending and byte order mark.
type textFile struct {
	lines []string // without line endings; a final newline adds no empty line
	crlf  bool
	bom   bool
}

// splitText splits content into lines. A file is CRLF when every one of its
// line endings is CRLF; the CRs are then dropped from the lines.
func splitText(content string) textFile {
	var tf textFile
	if s, ok := strings.CutPrefix(content, bom); ok {
		tf.bom, content = true, s
	}
	if content == "" {
		return tf
	}
	nl := strings.Count(content, "\n")
	tf.crlf = nl > 0 && strings.Count(content, "\r\n") == nl
	tf.lines = strings.Split(content, "\n")
	if tf.lines[len(tf.lines)-1] == "" {
		tf.lines = tf.lines[:len(tf.lines)-1]
	}
	if tf.crlf {
		for i, l := range tf.lines {
			tf.lines[i] = strings.TrimSuffix(l, "\r")
		}
	}
	return tf
}

// join writes lines back with the file's line ending, each line terminated
// (so the file ends with a newline, as Codex makes it), and its BOM.
func (tf textFile) join(lines []string) []byte {
	eol := "\n"
	if tf.crlf {
		eol = "\r\n"
	}
	size := len(bom)
	for _, l := range lines {
		size += len(l) + len(eol)
	}
	var b bytes.Buffer
	b.Grow(size)
	if tf.bom {
		b.WriteString(bom)
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString(eol)
	}
	return b.Bytes()
}
