package interp

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/runenv"
)

// TestProgressBundleEnds checks the last line of a progress bar: "done" with the count when
// the call ran to its total, "stopped early at N" with a full bar when early stopping ended it.
func TestProgressBundleEnds(t *testing.T) {
	for _, c := range []struct {
		ev         runenv.ProgressEvent
		want, miss []string
	}{
		{runenv.ProgressEvent{Label: "simulate", Done: 1000, Total: 1000, Finished: true},
			[]string{"1000/1000 done"}, []string{"stopped"}},
		{runenv.ProgressEvent{Label: "train NPE", Done: 74, Total: 1000, Finished: true, Stopped: true, Message: "epoch 74"},
			[]string{"stopped early at 74", "epoch 74"}, []string{"74/1000", "done"}},
	} {
		b := progressBundle(c.ev).MIMEBundle()
		text, _ := b["text/plain"].(string)
		htm, _ := b["text/html"].(string)
		for _, s := range c.want {
			if !strings.Contains(text, s) || !strings.Contains(htm, s) {
				t.Errorf("%s: bar %q / %q lacks %q", c.ev.Label, text, htm, s)
			}
		}
		for _, s := range c.miss {
			if strings.Contains(text, s) || strings.Contains(htm, s) {
				t.Errorf("%s: bar %q / %q shows %q", c.ev.Label, text, htm, s)
			}
		}
		if c.ev.Stopped && (!strings.Contains(text, "[##############################]") || !strings.Contains(htm, `value="1"`)) {
			t.Errorf("%s: a call stopped early shows a full bar: %q / %q", c.ev.Label, text, htm)
		}
	}
}
