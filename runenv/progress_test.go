package runenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// GOSBI_RUNENV_CHILD makes the test binary a program that sets nothing and reports the
	// progress of one call (for TestProgressEnv).
	if os.Getenv("GOSBI_RUNENV_CHILD") != "" {
		report := Progress()
		if report == nil {
			fmt.Println("no progress sink")
			os.Exit(0)
		}
		report(ProgressEvent{Label: "train NPE", Total: 2})
		time.Sleep(progressDelay + 100*time.Millisecond)
		report(ProgressEvent{Label: "train NPE", Done: 2, Total: 2, Finished: true, Message: "epoch 2"})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestProgressEventString(t *testing.T) {
	for _, c := range []struct {
		ev   ProgressEvent
		want string
	}{
		{ProgressEvent{Label: "train NPE", Done: 16, Total: 40, Message: "epoch 16"}, "train NPE [############..................] 16/40 epoch 16"},
		{ProgressEvent{Label: "simulate", Done: 1000, Total: 1000, Finished: true}, "simulate [##############################] 1000/1000 done"},
		{ProgressEvent{Label: "coverage", Done: 7}, "coverage [..............................] 7"},
	} {
		if got := c.ev.String(); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.ev, got, c.want)
		}
	}
}

// TestProgressEventLastLine: the last line of a bar reads as one sentence however the call
// ended: the count says how, then the last message after a semicolon, or the message says how
// (it begins with "stopped "), after the bare count.
func TestProgressEventLastLine(t *testing.T) {
	for _, c := range []struct {
		name string
		ev   ProgressEvent
		want string
	}{
		{"ran to its total", ProgressEvent{Label: "train NPE", Done: 40, Total: 40, Finished: true, Message: "epoch 40  val loss 1.234"},
			"train NPE [##############################] 40/40 done; epoch 40  val loss 1.234"},
		{"early stopping", ProgressEvent{Label: "train NPE", Done: 74, Total: 1000, Finished: true, Stopped: true, Message: "epoch 74"},
			"train NPE [##############################] stopped early at 74; epoch 74"},
		{"an error, message of the last epoch", ProgressEvent{Label: "train NPE", Done: 13, Total: 40, Finished: true, Message: "epoch 13"},
			"train NPE [##########....................] 13/40 ended; epoch 13"},
		{"a training interrupted", ProgressEvent{Label: "train NPE", Done: 21, Total: 1000, Finished: true, Message: "stopped at epoch 22 by interrupt; best epoch 21 kept"},
			"train NPE [#.............................] 21/1000 stopped at epoch 22 by interrupt; best epoch 21 kept"},
		{"a loop interrupted", ProgressEvent{Label: "SBC", Done: 3, Total: 40, Finished: true, Message: "stopped by interrupt after 3 of 40 test pairs; nothing kept"},
			"SBC [##............................] 3/40 stopped by interrupt after 3 of 40 test pairs; nothing kept"},
		{"interrupted, unknown total", ProgressEvent{Label: "certify", Finished: true, Message: "stopped by interrupt in the initial estimator; nothing kept"},
			"certify [..............................] stopped by interrupt in the initial estimator; nothing kept"},
		{"interrupted, unknown total, some done", ProgressEvent{Label: "coverage", Done: 7, Finished: true, Message: "stopped by interrupt"},
			"coverage [..............................] 7 stopped by interrupt"},
	} {
		if got := c.ev.String(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// events reports a call of total units, then its end.
func events(p *ProgressLine, label string, total int) {
	for i := 0; i <= total; i++ {
		p.Report(ProgressEvent{Label: label, Done: i, Total: total})
	}
	p.Report(ProgressEvent{Label: label, Done: total, Total: total, Finished: true})
}

// TestProgressLine: on a terminal, each event redraws the line in place and the last ends it;
// elsewhere only the last is written; a call quicker than the delay writes nothing.
func TestProgressLine(t *testing.T) {
	var term bytes.Buffer
	events(newProgressLine(&term, true, 80, 0), "train", 2)
	draws := strings.Split(term.String(), "\r")
	if len(draws) != 5 || draws[0] != "" {
		t.Fatalf("terminal output %q: want 4 draws, each after a carriage return", term.String())
	}
	if draws[1] != "train [..............................] 0/2\x1b[K" || draws[4] != "train [##############################] 2/2 done\x1b[K\n" {
		t.Errorf("terminal output %q", term.String())
	}

	var log bytes.Buffer
	events(newProgressLine(&log, false, 0, 0), "train", 2)
	if got := log.String(); got != "train [##############################] 2/2 done\n" {
		t.Errorf("file output %q, want the final line only", got)
	}

	var quick bytes.Buffer
	p := newProgressLine(&quick, true, 80, time.Hour)
	for range 100 {
		events(p, "quick", 3)
	}
	if quick.Len() != 0 {
		t.Errorf("quick calls wrote %q", quick.String())
	}
}

// TestProgressLineSilentCall: a call that reports nothing after its start is drawn once it has
// run for the delay.
func TestProgressLineSilentCall(t *testing.T) {
	var term syncBuffer
	p := newProgressLine(&term, true, 80, 20*time.Millisecond)
	p.Report(ProgressEvent{Label: "simulate", Total: 5})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(term.String(), "simulate") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := term.String(); got != "\rsimulate [..............................] 0/5\x1b[K" {
		t.Errorf("after the delay: %q", got)
	}
	p.End()
	if got := term.String(); !strings.HasSuffix(got, "\x1b[K\n") {
		t.Errorf("End left the line open: %q", got)
	}
}

// TestProgressLineClips: a line longer than the terminal is cut to fit, so that a carriage
// return can redraw it.
func TestProgressLineClips(t *testing.T) {
	var term bytes.Buffer
	p := newProgressLine(&term, true, 40, 0)
	p.Report(ProgressEvent{Label: "train", Done: 1, Total: 2, Message: strings.Repeat("very long message ", 10)})
	line := strings.TrimSuffix(strings.TrimPrefix(term.String(), "\r"), "\x1b[K")
	if n := len([]rune(line)); n != 39 || !strings.HasSuffix(line, "…") {
		t.Errorf("line of %d characters on a 40-column terminal: %q", n, line)
	}
}

// TestProgressEnv: a program that sets nothing shows its progress on standard error when
// started with GOSBI_PROGRESS=stderr, and shows nothing without it; an unknown value is
// reported.
func TestProgressEnv(t *testing.T) {
	run := func(env ...string) (stdout, stderr string) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), append([]string{"GOSBI_RUNENV_CHILD=1"}, env...)...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", env, err, e.String())
		}
		return o.String(), e.String()
	}
	if _, stderr := run(ProgressEnv + "=stderr"); stderr != "train NPE [##############################] 2/2 done; epoch 2\n" {
		t.Errorf("with %s=stderr the program wrote %q on standard error", ProgressEnv, stderr)
	}
	if stdout, stderr := run(ProgressEnv + "="); stdout != "no progress sink\n" || stderr != "" {
		t.Errorf("without %s: %q, %q", ProgressEnv, stdout, stderr)
	}
	if stdout, stderr := run(ProgressEnv + "=stdout"); stdout != "no progress sink\n" || !strings.Contains(stderr, `GOSBI_PROGRESS="stdout" is not a known value`) {
		t.Errorf("with %s=stdout: %q, %q", ProgressEnv, stdout, stderr)
	}
}

// syncBuffer is a bytes.Buffer safe for the timer's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressEventTimes: a running call's line says how long it has run and, once the rate
// so far is worth something, about how long it has left; the last line keeps its wording.
func TestProgressEventTimes(t *testing.T) {
	const min = time.Minute
	for _, c := range []struct {
		name string
		ev   ProgressEvent
		want string
	}{
		{"not measured", ProgressEvent{Label: "SBC", Done: 58, Total: 200},
			"SBC [#########.....................] 58/200"},
		{"under a second", ProgressEvent{Label: "SBC", Done: 58, Total: 200, Elapsed: 900 * time.Millisecond},
			"SBC [#########.....................] 58/200"},
		{"too few units", ProgressEvent{Label: "SBC", Done: 2, Total: 20, Elapsed: 19 * min},
			"SBC [###...........................] 2/20 · 19m elapsed"},
		{"too small a part", ProgressEvent{Label: "SBC", Done: 5, Total: 200, Elapsed: 19 * min},
			"SBC [#.............................] 5/200 · 19m elapsed"},
		{"too soon", ProgressEvent{Label: "simulate", Done: 500, Total: 1000, Elapsed: 4 * time.Second},
			"simulate [###############...............] 500/1000 · 4s elapsed"},
		{"estimate", ProgressEvent{Label: "SBC", Done: 50, Total: 200, Elapsed: 20 * min},
			"SBC [########......................] 50/200 · 20m, ~1h0m left"},
		{"estimate, as in the doc", ProgressEvent{Label: "SBC", Done: 58, Total: 200, Elapsed: 19 * min},
			"SBC [#########.....................] 58/200 · 19m, ~47m left"},
		{"estimate, minutes and seconds", ProgressEvent{Label: "simulate", Done: 300, Total: 1000, Elapsed: 30 * time.Second},
			"simulate [#########.....................] 300/1000 · 30s, ~1m10s left"},
		{"estimate with a message", ProgressEvent{Label: "SBC", Done: 100, Total: 200, Elapsed: 19 * min, Message: "pair 100"},
			"SBC [###############...............] 100/200 pair 100 · 19m, ~19m left"},
		{"a bound when it may stop early", ProgressEvent{Label: "train NPE", Done: 16, Total: 40, Elapsed: 8 * time.Second, Estimate: EstimateAtMost, Message: "epoch 16"},
			"train NPE [############..................] 16/40 epoch 16 · 8s, ≤12s left"},
		{"no estimate for units of unequal times", ProgressEvent{Label: "sequential", Done: 3, Total: 5, Elapsed: 19 * min, Estimate: EstimateNone, Message: "round 4 of 5"},
			"sequential [##################............] 3/5 round 4 of 5 · 19m elapsed"},
		{"resumed: the rate of the units done since", ProgressEvent{Label: "simulate", Done: 950, Total: 1000, Before: 900, Elapsed: 50 * time.Second},
			"simulate [#############################.] 950/1000 · 50s, ~50s left"},
		{"resumed: too few units since", ProgressEvent{Label: "simulate", Done: 902, Total: 1000, Before: 900, Elapsed: 10 * time.Second},
			"simulate [###########################...] 902/1000 · 10s elapsed"},
		{"resumed: too small a part of the rest", ProgressEvent{Label: "simulate", Done: 9020, Total: 10000, Before: 9000, Elapsed: 10 * time.Second},
			"simulate [###########################...] 9020/10000 · 10s elapsed"},
		{"unknown total", ProgressEvent{Label: "certify", Done: 7, Elapsed: 3 * time.Hour},
			"certify [..............................] 7 · 3h0m elapsed"},
		{"last line done", ProgressEvent{Label: "simulate", Done: 1000, Total: 1000, Finished: true, Elapsed: 19 * min},
			"simulate [##############################] 1000/1000 done"},
		{"last line stopped early", ProgressEvent{Label: "train NPE", Done: 74, Total: 1000, Finished: true, Stopped: true, Elapsed: 19 * min, Estimate: EstimateAtMost, Message: "epoch 74"},
			"train NPE [##############################] stopped early at 74; epoch 74"},
		{"last line ended", ProgressEvent{Label: "SBC", Done: 58, Total: 200, Finished: true, Elapsed: 19 * min},
			"SBC [#########.....................] 58/200 ended"},
	} {
		if got := c.ev.String(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestProgressLineFitsTimes: on a terminal too narrow for the whole line, the times are left
// out rather than the line cut in the middle of them or of the message; a line still too long
// is cut at the end of the message.
func TestProgressLineFitsTimes(t *testing.T) {
	ev := ProgressEvent{Label: "train NPE", Done: 16, Total: 40, Elapsed: 68 * time.Second, Estimate: EstimateAtMost, Message: "epoch 16  val loss 1.234"}
	for _, c := range []struct {
		width int
		want  string
	}{
		{100, "train NPE [############..................] 16/40 epoch 16  val loss 1.234 · 1m8s, ≤1m42s left"},
		{80, "train NPE [############..................] 16/40 epoch 16  val loss 1.234"},
		{60, "train NPE [############..................] 16/40 epoch 16 …"},
	} {
		var term bytes.Buffer
		newProgressLine(&term, true, c.width, 0).Report(ev)
		if got := strings.TrimSuffix(strings.TrimPrefix(term.String(), "\r"), "\x1b[K"); got != c.want {
			t.Errorf("%d columns:\n got %q\nwant %q", c.width, got, c.want)
		}
	}
}

// TestProgressEventStatus: the part of the line after the bar, which the notebook's bar shows
// beside its own drawing.
func TestProgressEventStatus(t *testing.T) {
	ev := ProgressEvent{Label: "SBC", Done: 50, Total: 200, Elapsed: 20 * time.Minute, Message: "pair 50"}
	if got, want := ev.Status(), "50/200 pair 50 · 20m, ~1h0m left"; got != want {
		t.Errorf("Status() = %q, want %q", got, want)
	}
	if got := ev.String(); !strings.HasSuffix(got, "] "+ev.Status()) {
		t.Errorf("String() = %q does not end with the status %q", got, ev.Status())
	}
}
