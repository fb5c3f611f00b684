package ipc

import (
	"fmt"
	"strings"
	"testing"
)

// TestSplitter feeds streams byte by byte and whole: the text comes out unchanged, marks
// come out in place, and text that resembles a mark is text.
func TestSplitter(t *testing.T) {
	mark := string(SyncMark("tok", 12))
	for _, tc := range []struct{ in, want string }{
		{"hello", "hello"},
		{"a" + mark + "b", "a[12]b"},
		{"\x00gosbi-sync-tok-", "\x00gosbi-sync-tok-"}, // a user printing the prefix
		{"\x00gosbi-sync-tok-x\x00y", "\x00gosbi-sync-tok-x\x00y"},
		{"\x00gosbi-sync-other-3\x00", "\x00gosbi-sync-other-3\x00"},
		{"é" + mark + "日本", "é[12]日本"},
		{"\x00\x00" + mark, "\x00\x00[12]"},
	} {
		for _, step := range []int{1, 2, 1 << 20} {
			s := NewSplitter("tok")
			var out strings.Builder
			for i := 0; i < len(tc.in); i += step {
				s.Write([]byte(tc.in[i:min(i+step, len(tc.in))]), func(b []byte) { out.Write(b) }, func(id int) { fmt.Fprintf(&out, "[%d]", id) })
			}
			out.Write(s.Rest())
			if out.String() != tc.want {
				t.Errorf("%q in steps of %d: got %q, want %q", tc.in, step, out.String(), tc.want)
			}
		}
	}
}
