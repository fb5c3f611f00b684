package interp

import "testing"

// TestRedefinitionDoesNotRunInit: the functions that call a redefined function are evaluated
// again so that they call the new one, and the interpreter runs a func init whenever it
// evaluates one; an init, which has run and cannot be called again, is not evaluated again.
func TestRedefinitionDoesNotRunInit(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "func f() int { return 1 }\nvar count int")
	ts.mustRun(t, "func init() { count += f() }")
	before := text(ts.mustRun(t, "count"))
	ts.mustRun(t, "func f() int { return 10 }")
	if got := text(ts.mustRun(t, "count")); got != before {
		t.Errorf("count = %s after f was redefined, %s before: the init that calls f ran again", got, before)
	}
}
