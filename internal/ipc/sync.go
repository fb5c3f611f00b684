package ipc

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// The worker's standard output and error are pipes. To know that everything written to one
// before a point has been forwarded (so that a display or the cell's reply comes after the
// text printed before it), the worker writes a sync mark into the pipe and waits until the
// reader has passed it. A mark is NUL, "gosbi-sync-", a token that is random per worker, "-",
// a decimal id and NUL; text that only resembles a mark is ordinary text.

// SyncMark returns the mark with the given token and id.
func SyncMark(token string, id int) []byte {
	b := append([]byte("\x00gosbi-sync-"+token+"-"), strconv.Itoa(id)...)
	return append(b, 0)
}

// Splitter separates the text written to a captured descriptor from the sync marks in it.
type Splitter struct {
	prefix  []byte
	pending []byte
}

// NewSplitter returns a Splitter for the marks made with token.
func NewSplitter(token string) *Splitter {
	return &Splitter{prefix: []byte("\x00gosbi-sync-" + token + "-")}
}

// Write takes the next bytes read and calls text with what can be forwarded and mark with the
// id of each complete mark, in the order they were written. It holds back what may be the
// start of a mark or of a UTF-8 sequence until more bytes come.
func (s *Splitter) Write(p []byte, text func([]byte), mark func(int)) {
	b := append(s.pending, p...)
	s.pending = nil
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			break
		}
		if i > 0 {
			text(b[:i])
			b = b[i:]
		}
		// b starts with NUL: a mark, the start of one, or text.
		n := len(s.prefix)
		if len(b) < n {
			if bytes.HasPrefix(s.prefix, b) {
				s.pending = append([]byte(nil), b...)
				return
			}
			text(b[:1])
			b = b[1:]
			continue
		}
		if !bytes.HasPrefix(b, s.prefix) {
			text(b[:1])
			b = b[1:]
			continue
		}
		j := n
		for j < len(b) && j-n < 19 && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		switch {
		case j == len(b) && j-n < 19:
			s.pending = append([]byte(nil), b...) // the id goes on in the next bytes
			return
		case j > n && b[j] == 0:
			id, _ := strconv.Atoi(string(b[n:j]))
			mark(id)
			b = b[j+1:]
		default:
			text(b[:1]) // not a mark after all
			b = b[1:]
		}
	}
	keep := len(b) - incompleteRune(b)
	if keep > 0 {
		text(b[:keep])
	}
	if keep < len(b) {
		s.pending = append([]byte(nil), b[keep:]...)
	}
}

// Rest returns what is held back, for when the stream has ended.
func (s *Splitter) Rest() []byte {
	r := s.pending
	s.pending = nil
	return r
}

// incompleteRune returns the length of an incomplete UTF-8 sequence at the end of b.
func incompleteRune(b []byte) int {
	for back := 1; back <= 3 && back <= len(b); back++ {
		c := b[len(b)-back]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-back:]) {
				return back
			}
			return 0
		}
	}
	return 0
}
