package interp

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/ipc"
	"github.com/gosbi/gosbi/runenv"
)

// TestProgressBundleEnds checks the last line of a progress bar: "done" with the count when
// the call ran to its total, "stopped early at N" with a full bar when early stopping ended it;
// a running call's bar says how long it has run and about how long it has left; the HTML bar
// escapes the status.
func TestProgressBundleEnds(t *testing.T) {
	for _, c := range []struct {
		ev         runenv.ProgressEvent
		want, miss []string
	}{
		{runenv.ProgressEvent{Label: "simulate", Done: 1000, Total: 1000, Finished: true},
			[]string{"1000/1000 done"}, []string{"stopped"}},
		{runenv.ProgressEvent{Label: "train NPE", Done: 74, Total: 1000, Finished: true, Stopped: true, Message: "epoch 74"},
			[]string{"stopped early at 74", "epoch 74"}, []string{"74/1000", "done"}},
		{runenv.ProgressEvent{Label: "simulate", Done: 5, Total: 10, Message: "x < y & z"},
			[]string{"5/10 x < y & z"}, nil},
		{runenv.ProgressEvent{Label: "SBC", Done: 50, Total: 200, Elapsed: 20 * time.Minute, Message: "pair 50"},
			[]string{"50/200 pair 50 · 20m, ~1h0m left"}, []string{"done"}},
	} {
		b := progressBundle(c.ev).MIMEBundle()
		text, _ := b["text/plain"].(string)
		htm, _ := b["text/html"].(string)
		for _, s := range c.want {
			if !strings.Contains(text, s) || !strings.Contains(htm, html.EscapeString(s)) {
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

// consoleView is what jupyter console 6.4.4 (Debian's) shows of a cell's events: its
// handle_iopub prints the text of stream and display_data messages and of the result, and
// ignores update_display_data.
func consoleView(evs []ipc.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		switch ev.Type {
		case ipc.Stream:
			b.WriteString(ev.Text)
		case ipc.DisplayData, ipc.ExecuteResult:
			if txt, ok := ev.Data["text/plain"].(string); ok {
				b.WriteString(txt + "\n")
			}
		}
	}
	return b.String()
}

// TestWorkerProgressReachesConsole: a console client, which shows a progress bar as it was
// first displayed, also sees the final state of each long call, once; quick calls show
// nothing.
func TestWorkerProgressReachesConsole(t *testing.T) {
	w := startWorkerEnv(t, "GOSBI_TEST_PROGRESS_DELAY=100ms")
	w.execute("import \"time\"", 0)
	evs := w.execute("for range 20 {\n\tq := sbi.NewProgress(\"quick\", 1)\n\tq.Finish()\n}\n"+
		"p := sbi.NewProgress(\"train NPE\", 40)\nfor i := range 40 {\n\ttime.Sleep(10 * time.Millisecond)\n\tp.Set(i+1, fmt.Sprintf(\"epoch %d\", i+1))\n}\np.Finish()", 1)
	view := consoleView(evs)
	if !strings.Contains(view, "train NPE [") {
		t.Errorf("the console shows no bar:\n%s", view)
	}
	if n := strings.Count(view, "40/40 done"); n != 1 {
		t.Errorf("the console shows the final state %d times, want once:\n%s", n, view)
	}
	if !regexp.MustCompile(`train NPE: 40/40 done in \d[\d.]*m?s \(epoch 40\)\n`).MatchString(view) {
		t.Errorf("the console lacks the summary line of the training:\n%s", view)
	}
	if strings.Contains(view, "quick") {
		t.Errorf("quick calls show in the console:\n%s", view)
	}
}

// TestProgressSummaryEnds checks the line that ends a bar in a cell's output for each way a
// call ends, a call that counted nothing included (certify's interrupt line has no count).
func TestProgressSummaryEnds(t *testing.T) {
	for _, c := range []struct {
		ev   runenv.ProgressEvent
		want string
	}{
		{runenv.ProgressEvent{Label: "train NPE", Done: 40, Total: 40, Finished: true, Message: "epoch 40"},
			"train NPE: 40/40 done in 1.5s (epoch 40)"},
		{runenv.ProgressEvent{Label: "train NPE", Done: 21, Total: 1000, Finished: true, Message: "stopped at epoch 22 by interrupt; best epoch 21 kept"},
			"train NPE: 21/1000 in 1.5s (stopped at epoch 22 by interrupt; best epoch 21 kept)"},
		{runenv.ProgressEvent{Label: "certify", Finished: true, Message: "stopped by interrupt in the initial estimator; nothing kept"},
			"certify: ended in 1.5s (stopped by interrupt in the initial estimator; nothing kept)"},
	} {
		if got := progressSummary(c.ev, 1500*time.Millisecond); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.ev.Label, got, c.want)
		}
	}
}
