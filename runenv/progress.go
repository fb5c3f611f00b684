package runenv

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Fraction is the part of the call done, in [0, 1]: Done/Total, 1 for a call stopped early
// by design, 0 when Total is unknown.
func (ev ProgressEvent) Fraction() float64 {
	switch {
	case ev.Finished && ev.Stopped:
		return 1
	case ev.Total <= 0:
		return 0
	}
	return max(0, min(1, float64(ev.Done)/float64(ev.Total)))
}

// Count is what a bar shows after it: "13/40" (or "13" when Total is unknown). On the last
// event of a call it also says how the call ended: "40/40 done" when the call ran to its
// total, "stopped early at 74" when early stopping ended it, and "13/40 ended" when it ended
// short of its total otherwise (an interrupt, an error), unless the message says how it
// ended (it begins with "stopped "): then the count alone, or "" when the total is unknown and
// nothing was done, so that the line reads "21/1000 stopped at epoch 22 by interrupt".
func (ev ProgressEvent) Count() string {
	if ev.Finished && ev.Stopped {
		return fmt.Sprintf("stopped early at %d", ev.Done)
	}
	count := fmt.Sprintf("%d", ev.Done)
	if ev.Total > 0 {
		count = fmt.Sprintf("%d/%d", ev.Done, ev.Total)
	}
	switch {
	case ev.Finished && ev.tellsEnd():
		if ev.Total <= 0 && ev.Done == 0 {
			return ""
		}
	case ev.Finished && ev.Total > 0 && ev.Done < ev.Total:
		count += " ended"
	case ev.Finished:
		count += " done"
	}
	return count
}

// tellsEnd reports whether the message says how the call ended: it begins with "stopped ",
// as the last message of a call that an interrupt or an error stopped does.
func (ev ProgressEvent) tellsEnd() bool { return strings.HasPrefix(ev.Message, "stopped ") }

// String renders the event as one line of text, the way a text progress bar shows it: the
// label, the bar and the Status,
//
//	train NPE [############..................] 16/40 epoch 16  val loss 1.234
//	SBC [#########.....................] 58/200 · 19m, ~47m left
func (ev ProgressEvent) String() string { return ev.line(true) }

// Status is what a bar shows beside it: the Count, the message and, after " · ", the Times
// when the event has them: "58/200 pair 58 · 19m, ~47m left". On the last event of a call it
// reads as one sentence: "40/40 done; epoch 40  val loss 1.234" when the Count says how the
// call ended, "21/1000 stopped at epoch 22 by interrupt; best epoch 21 kept" when the
// message does.
func (ev ProgressEvent) Status() string { return ev.status(true) }

// line is String, with the times only when withTimes is set.
func (ev ProgressEvent) line(withTimes bool) string {
	n := int(ev.Fraction()*barWidth + 0.5)
	bar := "[" + strings.Repeat("#", n) + strings.Repeat(".", barWidth-n) + "]"
	return strings.TrimSpace(ev.Label + " " + bar + " " + ev.status(withTimes))
}

// status is Status, with the times only when withTimes is set.
func (ev ProgressEvent) status(withTimes bool) string {
	s := ev.Count()
	switch {
	case ev.Message == "":
	case s == "":
		s = ev.Message
	case ev.Finished && !ev.tellsEnd():
		// The count says how the call ended; the message is its last state.
		s += "; " + ev.Message
	default:
		s += " " + ev.Message
	}
	if times := ev.Times(); withTimes && times != "" {
		s += " · " + times
	}
	return s
}

// The time left is estimated only once the call has run for at least estimateAfter and done
// at least estimateUnits units and estimateFraction of its units since Elapsed started:
// earlier, the rate seen so far says too little about the rest.
const (
	estimateAfter    = 5 * time.Second
	estimateUnits    = 3
	estimateFraction = 0.03
)

// Times says how long a running call has run and, once that can be told, about how long it
// has left at its mean rate so far: "19m elapsed", "19m, ~47m left", or "19m, ≤47m left"
// when that is a bound (Estimate). It is empty on the last event of a call (whose line keeps
// its own wording) and when Elapsed is under a second. It names no time left when Total is
// unknown, when Estimate is EstimateNone, or before the call has run 5 seconds and done 3
// units and 3% of its units since Elapsed started (Done − Before of Total − Before).
func (ev ProgressEvent) Times() string {
	if ev.Finished || ev.Elapsed < time.Second {
		return ""
	}
	left, ok := ev.remaining()
	switch {
	case !ok:
		return roughDuration(ev.Elapsed) + " elapsed"
	case ev.Estimate == EstimateAtMost:
		return roughDuration(ev.Elapsed) + ", ≤" + roughDuration(left) + " left"
	}
	return roughDuration(ev.Elapsed) + ", ~" + roughDuration(left) + " left"
}

// remaining estimates the time the call has left at its mean rate since Elapsed started; ok
// is false when that cannot be estimated honestly (see Times).
func (ev ProgressEvent) remaining() (left time.Duration, ok bool) {
	since, toDo := ev.Done-ev.Before, ev.Total-ev.Before
	if ev.Finished || ev.Estimate == EstimateNone || ev.Total <= 0 || ev.Before < 0 ||
		since <= 0 || ev.Done >= ev.Total || ev.Elapsed < estimateAfter ||
		since < estimateUnits || float64(since) < estimateFraction*float64(toDo) {
		return 0, false
	}
	perUnit := float64(ev.Elapsed) / float64(since)
	return time.Duration(perUnit * float64(ev.Total-ev.Done)), true
}

// roughDuration writes d as a person reads a wait, in few characters: "42s", "2m5s", "19m",
// "3h12m".
func roughDuration(d time.Duration) string {
	switch {
	case d < time.Minute-time.Second/2:
		return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
	case d < 10*time.Minute-time.Second/2:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < time.Hour-time.Minute/2:
		return fmt.Sprintf("%dm", int(d.Round(time.Minute)/time.Minute))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// barWidth is the number of cells of a text bar.
const barWidth = 30

// progressDelay is how long a call runs before a ProgressLine shows it.
const progressDelay = time.Second

// ProgressLine draws the progress of long library calls on a writer, standard error usually.
// On a terminal it is one line, redrawn in place (a carriage return) as events arrive and
// ended with a newline, in its final state, when the call finishes. Elsewhere (a file, a
// pipe) it writes only each call's final line, so logs stay readable. A call appears once it
// has run for a second: quick calls, such as many short ones in a loop, leave nothing. Calls
// that run at once (a training that simulates) share the line: the latest event is drawn. A
// line too long for the terminal leaves out its times, and is cut if still too long. It is
// safe for concurrent use.
type ProgressLine struct {
	w        io.Writer
	terminal bool
	width    int           // columns of the terminal; lines are cut to fit
	delay    time.Duration // how long a call runs before it is shown
	mu       sync.Mutex
	calls    map[string]*lineCall // by label
	drawn    bool                 // a line is drawn and not ended
}

// lineCall is the state of one call on a ProgressLine.
type lineCall struct {
	start time.Time
	ev    ProgressEvent
	shown bool
	timer *time.Timer
}

// NewProgressLine returns a ProgressLine that draws on w: in place when w is a terminal.
func NewProgressLine(w io.Writer) *ProgressLine {
	width, terminal := 0, false
	if f, ok := w.(*os.File); ok {
		width, terminal = terminalWidth(f)
	}
	return newProgressLine(w, terminal, width, progressDelay)
}

func newProgressLine(w io.Writer, terminal bool, width int, delay time.Duration) *ProgressLine {
	if width <= 0 {
		width = 80
	}
	return &ProgressLine{w: w, terminal: terminal, width: width, delay: delay, calls: map[string]*lineCall{}}
}

// Report takes one progress event; it is a ProgressFunc (SetProgress(p.Report)).
func (p *ProgressLine) Report(ev ProgressEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.calls[ev.Label]
	if c == nil || c.ev.Finished {
		c = &lineCall{start: time.Now()}
		p.calls[ev.Label] = c
		if p.terminal && p.delay > 0 {
			// a call that reports nothing for a while still shows that it runs
			c.timer = time.AfterFunc(p.delay, func() {
				p.mu.Lock()
				defer p.mu.Unlock()
				if p.calls[c.ev.Label] == c && !c.ev.Finished {
					p.draw(c, false)
				}
			})
		}
	}
	c.ev = ev
	long := c.shown || time.Since(c.start) >= p.delay
	if ev.Finished {
		if c.timer != nil {
			c.timer.Stop()
		}
		if long {
			p.draw(c, true)
		}
		return
	}
	if long && p.terminal {
		p.draw(c, false)
	}
}

// draw writes the call's state: in place on a terminal, and as a line of its own when final.
func (p *ProgressLine) draw(c *lineCall, final bool) {
	c.shown = true
	line := fit(c.ev, p.width-1)
	switch {
	case p.terminal && final:
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", line)
		p.drawn = false
	case p.terminal:
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.drawn = true
	case final:
		fmt.Fprintln(p.w, line)
	}
}

// End ends a line left drawn by calls that did not finish (an interrupted cell of a REPL), so
// that what follows starts on a line of its own, and forgets those calls.
func (p *ProgressLine) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls {
		if c.timer != nil {
			c.timer.Stop()
		}
	}
	p.calls = map[string]*lineCall{}
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// fit is the event's line in at most n characters: without its times when the line with
// them is longer (rather than cut in the middle of them), and then clipped.
func fit(ev ProgressEvent, n int) string {
	if line := ev.String(); utf8.RuneCountInString(line) <= n {
		return line
	}
	return clip(ev.line(false), n)
}

// clip cuts s to at most n characters, ending with "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(0, n-1)]) + "…"
}

// ProgressToStderr sends the progress of long library calls to standard error as a
// ProgressLine: a plain Go program's way to see its trainings advance. Setting the
// environment variable GOSBI_PROGRESS=stderr does the same when the program starts.
func ProgressToStderr() { SetProgress(NewProgressLine(os.Stderr).Report) }

// ProgressEnv is the environment variable that turns the progress line on at start-up.
const ProgressEnv = "GOSBI_PROGRESS"

func init() {
	switch v := os.Getenv(ProgressEnv); v {
	case "":
	case "stderr":
		ProgressToStderr()
	default:
		fmt.Fprintf(os.Stderr, "gosbi: %s=%q is not a known value: set it to \"stderr\" for a progress line on standard error; progress stays off\n", ProgressEnv, v)
	}
}
