package interp

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCaptureFlush writes through a captured pipe, text that looks like a sync mark
// included: Flush returns once the text before it has been sent, and no text is lost.
func TestCaptureFlush(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var mu sync.Mutex
	var got strings.Builder
	c := newCapture("stdout", w, r, "tok", func(_, text string) { mu.Lock(); got.WriteString(text); mu.Unlock() })
	var want strings.Builder
	for _, s := range []string{"héllo ", "\x00gosbi-sync-", "\x00gosbi-sync-tok-", "x\x00", "wörld ✓"} {
		w.WriteString(s)
		want.WriteString(s)
		start := time.Now()
		c.Flush()
		if d := time.Since(start); d > time.Second {
			t.Errorf("Flush after %q took %v", s, d)
		}
		mu.Lock()
		g := got.String()
		mu.Unlock()
		if !strings.HasPrefix(want.String(), g) || len(want.String())-len(g) > len("\x00gosbi-sync-tok-") {
			t.Errorf("after %q and a flush the reader sent %q", s, g)
		}
	}
	w.Close()
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if got.String() != want.String() {
		t.Errorf("sent %q, want %q", got.String(), want.String())
	}
}
