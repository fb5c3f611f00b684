package interp

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	yaegi "github.com/traefik/yaegi/interp"
)

// interruptSpin runs a cell that loops forever and interrupts it once it runs.
func (ts *testSession) interruptSpin(t *testing.T) {
	t.Helper()
	ts.interruptSpinCell(t, "")
}

// interruptSpinCell runs code followed by a loop that runs forever, interrupts the loop and
// returns the cell's error.
func (ts *testSession) interruptSpinCell(t *testing.T, code string) *Error {
	t.Helper()
	ts.out.Reset()
	go func() {
		// interrupt once the cell runs: an interrupt before it starts would be lost
		for !strings.Contains(ts.out.String(), "spinning") {
			time.Sleep(5 * time.Millisecond)
		}
		ts.Interrupt()
	}()
	res := ts.run(code + "fmt.Println(\"spinning\")\nfor {\n}")
	if res.Err == nil || res.Err.Name != "Interrupted" {
		t.Fatalf("want Interrupted, got %+v", res.Err)
	}
	return res.Err
}

// TestInterruptKeepsEarlierClosures calls, after an interrupted cell, functions that earlier
// cells made and stored: a function literal in a variable, in a struct field, a map or a
// slice, a closure returned by a function, one handed to compiled code, and one that starts a
// goroutine. Each must still run (the interpreter tied function literals to the run that made
// them, and after an interrupt they silently returned zero values).
func TestInterruptKeepsEarlierClosures(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, `h := func() int { return 42 }
type Sim struct{ F func(x float64) float64 }
sim := Sim{F: func(x float64) float64 { return 2 * x }}
fs := map[string]func() int{"a": func() int { return 42 }}
ls := []func() int{func() int { return 42 }}
func adder(n int) func(int) int { return func(x int) int { return x + n } }
add2 := adder(2)
less := func(xs []int) func(i, j int) bool { return func(i, j int) bool { return xs[i] > xs[j] } }
ch := make(chan int)
start := func() { go func() { ch <- 42 }() }`)
	ts.interruptSpin(t)
	for _, c := range []struct{ expr, want string }{
		{"h()", "42"},
		{"sim.F(21)", "42"},
		{"fs[\"a\"]()", "42"},
		{"ls[0]()", "42"},
		{"add2(40)", "42"},
		{"xs := []int{1, 42, 3}\nsort.Slice(xs, less(xs))\nxs[0]", "42"},
		{"start()\n<-ch", "42"},
	} {
		if got := text(ts.mustRun(t, c.expr)); got != c.want {
			t.Errorf("%q after an interrupt = %s, want %s", c.expr, got, c.want)
		}
	}
}

// TestInterruptKeepsWaitingGoroutine interrupts a cell while a goroutine of an earlier cell
// waits on a channel: the goroutine goes on afterwards (it stopped silently, and its result
// never came).
func TestInterruptKeepsWaitingGoroutine(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "in := make(chan int)\nout := make(chan int)\ngo func() { out <- 2 * <-in }()")
	ts.interruptSpin(t)
	ts.out.Reset()
	// the time limit only keeps a lost goroutine from hanging the test
	res := ts.mustRun(t, "in <- 21\nselect {\ncase v := <-out:\n\tfmt.Println(v)\ncase <-time.After(10 * time.Second):\n\tfmt.Println(\"lost\")\n}")
	if got := strings.TrimSpace(ts.out.String()); got != "42" {
		t.Errorf("the goroutine of an earlier cell after an interrupt gave %q, want 42 (%+v)", got, res)
	}
}

// TestRunIDField is the canary of the session's access to the interpreter's run number
// (runid.go): it fails when a newer interpreter moves the field, or no longer advances it
// when it stops an interrupted evaluation.
func TestRunIDField(t *testing.T) {
	yi := yaegi.New(yaegi.Options{})
	p := runIDOf(yi)
	if p == nil {
		t.Fatal("the interpreter has no field id of type uint64: find its run number (runid() in its interp.go) " +
			"and update runIDOf, or function literals made before an interrupt stop working")
	}
	started := make(chan struct{})
	if err := yi.Use(yaegi.Exports{"canary/canary": {"Started": reflect.ValueOf(func() { close(started) })}}); err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval(`import "canary"`); err != nil {
		t.Fatal(err)
	}
	prog, err := yi.Compile("canary.Started()\nfor {\n}")
	if err != nil {
		t.Fatal(err)
	}
	before := *p
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if _, err := yi.ExecuteWithContext(ctx, prog); !errors.Is(err, context.Canceled) {
		t.Fatalf("the interrupted evaluation returned %v, want context.Canceled", err)
	}
	if after := *p; after != before+1 {
		t.Errorf("an interrupt took the run number from %d to %d, want %d: the interpreter stops code in another way now", before, after, before+1)
	}
}

// TestInterruptNotesWaitingLiteral interrupts cells that made a function literal before the
// interrupt, directly or by calling a function of the session (a function, a method, a
// function literal of an earlier cell, or one of these through another): the literal still
// runs afterwards, and where it may wait on a channel (which the interpreter then ends at
// once) the interrupt's error says so. A literal that an earlier cell made is not affected.
func TestInterruptNotesWaitingLiteral(t *testing.T) {
	for _, c := range []struct {
		name, setup, cell, call, want string
		note                          bool
	}{
		{"computes", "", "sq := func(x float64) float64 { return x * x }\n", "sq(3)", "9", false},
		{"two range variables", "", "sum := func(xs []int) int { s := 0; for _, x := range xs { s += x }; return s }\n", "sum([]int{40, 2})", "42", false},
		{"receives", "", "ch := make(chan int, 1)\nrecv := func() int { return <-ch }\n", "", "", true},
		{"sends", "", "ch := make(chan int)\nsend := func(v int) { ch <- v }\n", "", "", true},
		{"ranges", "", "ch := make(chan int)\ndrain := func() (n int) { for range ch { n++ }; return n }\n", "", "", true},
		{"selects", "", "ch := make(chan int)\npoll := func() { select { case <-ch: default: } }\n", "", "", true},
		{"returned by a function",
			"func makeRecv(ch chan int) func() int { return func() int { v := <-ch; return v } }",
			"recv := makeRecv(make(chan int))\n", "", "", true},
		{"returned by a method",
			"type Q struct{ ch chan int }\nfunc (q Q) Recv() func() int { return func() int { v := <-q.ch; return v } }",
			"q := Q{make(chan int)}\nrecv := q.Recv()\n", "", "", true},
		{"returned by a literal of an earlier cell",
			"mk := func(ch chan int) func() int { return func() int { v := <-ch; return v } }",
			"recv := mk(make(chan int))\n", "", "", true},
		{"returned through another function",
			"func inner(ch chan int) func() int { return func() int { v := <-ch; return v } }\nfunc outer() func() int { return inner(make(chan int)) }",
			"recv := outer()\n", "", "", true},
		{"returned by a function, computes",
			"func adder(n int) func(int) int { return func(x int) int { return x + n } }",
			"add2 := adder(2)\n", "add2(40)", "42", false},
		{"a literal of an earlier cell called",
			"ch := make(chan int, 1)\nrecv := func() int { v := <-ch; return v }",
			"ch <- 1\nfirst := recv()\n", "ch <- 42\nrecv()", "42", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			if c.setup != "" {
				ts.mustRun(t, c.setup)
			}
			e := ts.interruptSpinCell(t, c.cell)
			if got := strings.Contains(e.Value, "wait on a channel"); got != c.note {
				t.Errorf("note on waiting on a channel: %v, want %v, in %q", got, c.note, e.Value)
			}
			if c.call != "" {
				if got := text(ts.mustRun(t, c.call)); got != c.want {
					t.Errorf("%s after the interrupt = %s, want %s", c.call, got, c.want)
				}
			}
		})
	}
}

// TestInterruptNotesWaitingMethod interrupts cells that call a function of the session which
// puts a value of a session type in an interface of compiled code (fmt.Stringer, error,
// sort.Interface). The interpreter ties the methods called through that interface to the
// frame of the function that made it, so a method that may wait on a channel then ends at
// once there, even when fmt.Println calls it in a later cell: the interrupt's error names the
// method. A method that does not wait is not named, and still works.
func TestInterruptNotesWaitingMethod(t *testing.T) {
	for _, c := range []struct {
		name, setup, cell, method, call, want string
	}{
		{"String called by fmt",
			"type Q struct{ ch chan string }\nfunc (q Q) String() string { v := <-q.ch; return v }\nfunc mk(q Q) fmt.Stringer { return q }",
			"s := mk(Q{make(chan string)})\n", "Q.String", "", ""},
		{"Error on a pointer receiver",
			"type E struct{ ch chan string }\nfunc (e *E) Error() string { v := <-e.ch; return v }\nfunc check(e *E) error { return e }",
			"err := check(&E{make(chan string)})\n", "E.Error", "", ""},
		{"Len of sort.Interface, through a variable of an earlier cell",
			"type L struct{ ch chan int }\nfunc (l L) Len() int { select { case n := <-l.ch: return n } }\n" +
				"func (l L) Less(i, j int) bool { return false }\nfunc (l L) Swap(i, j int) {}\nl := L{make(chan int)}",
			"si := func() sort.Interface { return l }()\n", "L.Len", "", ""},
		{"String that does not wait",
			"type Q struct{ n int }\nfunc (q Q) String() string { return fmt.Sprint(\"q\", q.n) }\nfunc mk(q Q) fmt.Stringer { return q }",
			"s := mk(Q{1})\n", "", "fmt.Sprint(s)", `"q1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, c.setup)
			e := ts.interruptSpinCell(t, c.cell)
			noted := strings.Contains(e.Value, "called through that interface")
			if noted != (c.method != "") || !strings.Contains(e.Value, c.method) {
				t.Errorf("the interrupt's error %q: want a note naming the method %q (none if empty)", e.Value, c.method)
			}
			if c.call != "" {
				if got := text(ts.mustRun(t, c.call)); got != c.want {
					t.Errorf("%s after the interrupt = %s, want %s", c.call, got, c.want)
				}
			}
		})
	}
}
