package interp

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/syncbuf"
)

// interruptOnWrite is a cell's standard error that interrupts the session once it has been
// written text holding marker: a step of the session that writes to it is then followed by
// the interrupt, without a race against the cell's code.
type interruptOnWrite struct {
	syncbuf.Buffer
	s      *Session
	marker string
}

func (w *interruptOnWrite) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.Buffer.String(), w.marker) {
		w.s.Interrupt()
	}
	return n, err
}

// TestInterruptDuringReevaluation interrupts a cell that redefines a function while the
// session evaluates again the functions of earlier cells that call it: the interrupt comes
// with the warning about a method that calls it, which is written just before the function
// g is evaluated again. The cell's definitions have taken effect, so g is evaluated again all
// the same and calls the new function (it was marked "no longer compiles: context canceled",
// and calling it was refused); the cell stops at its next statement, reported as
// interrupted, and running the cell again runs it all.
func TestInterruptDuringReevaluation(t *testing.T) {
	ts := newTestSession(t)
	w := &interruptOnWrite{s: ts.Session, marker: "warning: method T.M"}
	ts.opts.Stderr = w
	ts.mustRun(t, "func f() int { return 1 }")
	ts.mustRun(t, "type T struct{}\nfunc (T) M() int { return f() }")
	ts.mustRun(t, "func g() int { return f() * 10 }")
	cell := "func f() int { return 2 }\nfmt.Println(\"after\", g())"
	ts.out.Reset()
	res := ts.run(cell)
	if !strings.Contains(w.String(), "warning: method T.M") {
		t.Fatalf("no warning about the method T.M, so no interrupt: %q", w.String())
	}
	if res.Err == nil || res.Err.Name != "Interrupted" {
		t.Errorf("the cell interrupted while its callers were evaluated again gave %+v, want Interrupted", res.Err)
	}
	if strings.Contains(w.String(), "no longer compiles") {
		t.Errorf("the interrupted re-evaluation is reported as a failure to compile: %q", w.String())
	}
	if got := ts.out.String(); got != "" {
		t.Errorf("the statement after the interrupt printed %q", got)
	}
	if got := text(ts.mustRun(t, "g()")); got != "20" {
		t.Errorf("g() after the interrupted cell = %s, want 20 (the new f)", got)
	}
	w.marker = "no interrupt"
	ts.mustRun(t, cell)
	if got := ts.out.String(); got != "after 20\n" {
		t.Errorf("the cell run again printed %q, want \"after 20\\n\"", got)
	}
}
