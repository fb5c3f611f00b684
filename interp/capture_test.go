package interp

import (
	"strings"
	"testing"
)

// TestCaptureDeliver feeds output in awkward pieces: sync marks and UTF-8 characters split
// across reads must neither leak into the text nor be corrupted.
func TestCaptureDeliver(t *testing.T) {
	var got strings.Builder
	c := &capture{name: "stdout", send: func(_, text string) { got.WriteString(text) }, acks: map[int]chan struct{}{}}
	input := "héllo " + string(markPrefix) + "7\x00wörld ✓"
	for cut := 1; cut < len(input); cut++ {
		got.Reset()
		c.acks[7] = make(chan struct{})
		pending := c.deliver([]byte(input[:cut]))
		pending = c.deliver(append(pending, input[cut:]...))
		if len(pending) != 0 {
			t.Fatalf("cut %d: %q left over", cut, pending)
		}
		if got.String() != "héllo wörld ✓" {
			t.Fatalf("cut %d: delivered %q", cut, got.String())
		}
		if _, waiting := c.acks[7]; waiting {
			t.Fatalf("cut %d: the sync mark was not acknowledged", cut)
		}
	}
}
