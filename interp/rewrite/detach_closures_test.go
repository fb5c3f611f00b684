package rewrite

import (
	"testing"
	"time"
)

// TestDetachClosures checks which function literals detach-closures returns from a literal
// called at once: those made directly in a function with a defer statement, and no others.
func TestDetachClosures(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"func f() {\n\tfn := func() { show(1) }\n\tdefer fn()\n}", "func f() {\n\tfn := func() func() { return func() { show(1) } }()\n\tdefer fn()\n}"},
		{"func f() {\n\tdefer run(func(x int) int { return x })\n}", "func f() {\n\tdefer run(func() func(x int) int { return func(x int) int { return x } }())\n}"},
		{"func f() (err error) {\n\tif true {\n\t\tg := func() (n int, e error) { return }\n\t\t_ = g\n\t}\n\tdefer done()\n\treturn\n}", "func f() (err error) {\n\tif true {\n\t\tg := func() func() (n int, e error) { return func() (n int, e error) { return } }()\n\t\t_ = g\n\t}\n\tdefer done()\n\treturn\n}"},
		// a literal with a defer of its own, in a function with one: both frames
		{"func f() {\n\tdefer done()\n\th := func() {\n\t\tk := func() {}\n\t\tdefer k()\n\t}\n\t_ = h\n}", "func f() {\n\tdefer done()\n\th := func() func() { return func() {\n\t\tk := func() func() { return func() {} }()\n\t\tdefer k()\n\t} }()\n\t_ = h\n}"},
		// an immediately called literal's argument, in a statement of the cell
		{"x := 1\nfunc() {\n\tdefer done()\n\tfunc(f func()) { f() }(func() {})\n}()", "x := 1\nfunc() {\n\tdefer done()\n\tfunc(f func()) { f() }(func() func() { return func() {} }())\n}()"},
		// left as written: no defer in the literal's own function, or a literal called where it stands
		{"func f() {\n\tfn := func() {}\n\tfn()\n}", ""},
		{"func f() {\n\th := func() { defer done() }\n\th()\n}", ""},
		{"func f() {\n\tdefer func() { recover() }()\n\tgo func() {}()\n\tfunc() {}()\n}", ""},
		{"fn := func() {}\ndefer fn()", ""},
	} {
		checkRewrite(t, detachClosures, Env{}, c.in, c.want)
	}
}

// TestDetachClosuresTwice checks that the pass leaves its own output as it is.
func TestDetachClosuresTwice(t *testing.T) {
	const in = "func f() {\n\tfn := func() {}\n\tdefer fn()\n}"
	once := rewritten(t, detachClosures, Env{}, Decl, in)
	checkRewrite(t, detachClosures, Env{}, once, StripPositions(once))
}

func TestCanaryDetachClosures(t *testing.T) {
	const decl = "var got int\nfunc run() {\n\tfn := func() { got = 7 }\n\tdefer fn()\n}"
	const fill = "func fill() int {\n\tgot = 0\n\trun()\n\treturn got\n}"
	// evalWithin evaluates the cells in a goroutine, which a deadlock leaves behind.
	evalWithin := func(decl string) (int64, error, bool) {
		type result struct {
			v   int64
			err error
		}
		ch := make(chan result, 1)
		go func() {
			v, err := evalInt(t, newInterp(t), decl, fill, "fill()")
			ch <- result{v, err}
		}()
		select {
		case r := <-ch:
			return r.v, r.err, true
		case <-time.After(10 * time.Second):
			return 0, nil, false
		}
	}
	if got, err, ended := evalWithin(decl); ended {
		if err == nil && got == 7 {
			t.Errorf("yaegi now runs a deferred call of a function literal of the same function: drop pass %s (%s)", detachClosures.Name, detachClosures.Issue)
		} else {
			t.Logf("yaegi fails differently now: %d, %v", got, err)
		}
	}
	got, err, ended := evalWithin(rewritten(t, detachClosures, Env{}, Decl, decl))
	if !ended || err != nil || got != 7 {
		t.Errorf("rewritten: fill() = %d, %v (ended: %t); want 7", got, err, ended)
	}
}
