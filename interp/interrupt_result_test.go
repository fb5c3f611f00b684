package interp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/syncbuf"
	"github.com/gosbi/gosbi/runenv"
)

// TestInterruptKeepsReturnedResult: a cell `res, err := work.Run()` interrupted while the
// compiled call runs, which returns what it had done and the context's error when the
// interrupt comes (as sbi.Sequential and sbi.SimulateBatch do), keeps res and err: the
// interpreter assigned them before it stopped the cell, and dropping them would lose the
// work. A call that returns nothing (zero values) is undone as before, and nothing after the
// statement runs.
func TestInterruptKeepsReturnedResult(t *testing.T) {
	started := make(chan struct{}, 4)
	wait := func() {
		started <- struct{}{}
		<-runenv.Context().Done()
	}
	symbols := map[string]map[string]reflect.Value{"example.org/work/work": {
		"Run": reflect.ValueOf(func() ([]int, error) {
			wait()
			return []int{1, 2, 3}, runenv.Context().Err()
		}),
		"Nothing": reflect.ValueOf(func() ([]int, error) {
			wait()
			return nil, nil
		}),
	}}
	ts := &testSession{out: &syncbuf.Buffer{}, errOut: &syncbuf.Buffer{}}
	s, err := NewSession(Config{Stdout: ts.out, Stderr: ts.errOut, Symbols: symbols})
	if err != nil {
		t.Fatal(err)
	}
	ts.Session = s
	t.Cleanup(func() { runenv.SetDisplay(nil) })
	interrupt := func(code string) *Error {
		go func() {
			<-started
			ts.Interrupt()
		}()
		return ts.run(code).Err
	}
	ts.mustRun(t, `import "example.org/work"`)
	ts.mustRun(t, "after := 0")

	e := interrupt("res, err := work.Run()\nafter = 1")
	if e == nil || e.Name != "Interrupted" || !strings.Contains(e.Value, "res, err: kept") {
		t.Fatalf("interrupted cell: %+v, want Interrupted with a note that res and err are kept", e)
	}
	if got := text(ts.mustRun(t, "len(res)")); got != "3" {
		t.Errorf("len(res) = %s after the interrupt, want 3: the call's result was dropped", got)
	}
	if got := text(ts.mustRun(t, "errors.Is(err, context.Canceled)")); got != "true" {
		t.Errorf("err after the interrupt: errors.Is(err, context.Canceled) = %s, want true", got)
	}
	if got := text(ts.mustRun(t, "after")); got != "0" {
		t.Errorf("after = %s: the statement after the interrupted call ran", got)
	}

	e = interrupt("none, nerr := work.Nothing()")
	if e == nil || e.Name != "Interrupted" || strings.Contains(e.Value, "kept") {
		t.Fatalf("interrupted cell with zero results: %+v, want Interrupted without a note", e)
	}
	if r := ts.run("none"); r.Err == nil || !strings.Contains(r.Err.Value, "undefined: none") {
		t.Errorf("none after an interrupted call that returned nothing: %+v, want undefined", r.Err)
	}
}
