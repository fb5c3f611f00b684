package kernel

import (
	"slices"
	"strings"
	"testing"
)

func TestCursorConversion(t *testing.T) {
	code := "a😀b" // code points a, 😀, b; UTF-16 units a, 2×😀, b
	for _, tc := range []struct {
		pos, want int
		utf16     bool
	}{
		{0, 0, false}, {2, 2, false}, {3, 3, false}, // within the code points: read as code points
		{4, 3, true}, // beyond them: UTF-16, the end of the code
	} {
		got, u := toCodePoints(code, tc.pos)
		if got != tc.want || u != tc.utf16 {
			t.Errorf("toCodePoints(%q, %d) = %d, %v; want %d, %v", code, tc.pos, got, u, tc.want, tc.utf16)
		}
	}
	t.Setenv("GOSBI_CURSOR_UNITS", "utf16")
	if got, u := toCodePoints(code, 3); got != 2 || !u {
		t.Errorf("forced UTF-16: %d, %v; want 2, true", got, u)
	}
	for cp, want := range []int{0, 1, 3, 4} {
		if got := toUTF16(code, cp); got != want {
			t.Errorf("toUTF16(%d) = %d, want %d", cp, got, want)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		glob, s string
		match   bool
	}{
		{"6*", "6 * 7", true}, {"6*", "16", false}, {"1?2*", "1 2 3", true}, {"a.b", "axb", false},
		{"", "anything", true}, {"*x*", "line\nx", true},
	} {
		if got := globRegexp(tc.glob).MatchString(tc.s); got != tc.match {
			t.Errorf("glob %q on %q: %v, want %v", tc.glob, tc.s, got, tc.match)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	tb := newTailBuffer(3)
	tb.Write([]byte("runtime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow\n\ngoroutine 1 [running]:\nmain.f()\n\tmain.go:3"))
	if h := tb.Headline(); h != "fatal error: stack overflow" {
		t.Errorf("headline %q", h)
	}
	lines := tb.Lines()
	if len(lines) != 4 || lines[3] != "\tmain.go:3" {
		t.Errorf("lines %q, want the last 3 complete lines and the partial one", lines)
	}
	if !strings.Contains(tb.String(), "main.f()") {
		t.Errorf("String %q", tb.String())
	}
}

func TestTailBufferDeducesStackOverflow(t *testing.T) {
	tb := newTailBuffer(40)
	// The trace as it arrives when the "fatal error" line was lost, in pieces.
	for _, piece := range []string{"\nruntime stack:\nruntime.throw({0x130f4d0?, 0x4469ba?})\n", "\t/usr/local/go/src/runtime/panic.go:1229 +0x48\n", "runtime.new", "stack()\n\t/usr/local/go/src/runtime/stack.go:1207\n"} {
		tb.Write([]byte(piece))
	}
	if h := tb.Headline(); h != "fatal error: stack overflow" {
		t.Errorf("headline %q", h)
	}
}

func TestPrefixWriter(t *testing.T) {
	var out strings.Builder
	w := newPrefixWriter(&out, "worker: ")
	for _, piece := range []string{"fatal ", "error: x\nnext", " line\n"} {
		w.Write([]byte(piece))
	}
	if got := out.String(); got != "worker: fatal error: x\nworker: next line\n" {
		t.Errorf("got %q", got)
	}
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct {
		ci   ConnectionInfo
		want string
	}{
		{ConnectionInfo{Transport: "tcp", IP: "127.0.0.1"}, "tcp://127.0.0.1:5555"},
		{ConnectionInfo{Transport: "tcp", IP: "::1"}, "tcp://[::1]:5555"},
		{ConnectionInfo{Transport: "tcp", IP: "fe80::1%eth0"}, "tcp://[fe80::1%eth0]:5555"},
		{ConnectionInfo{Transport: "ipc", IP: "/tmp/k"}, "ipc:///tmp/k-5555"},
	} {
		if got := tc.ci.endpoint(5555); got != tc.want {
			t.Errorf("%s %s: endpoint %q, want %q", tc.ci.Transport, tc.ci.IP, got, tc.want)
		}
	}
}

func TestCrashSummaryStackOverflow(t *testing.T) {
	tb := newTailBuffer(40)
	// the runtime's own lines about the stack (sp=, morebuf=, sched=) say nothing to a user
	tb.Write([]byte("runtime: goroutine stack exceeds 1000000000-byte limit\n" +
		"runtime: sp=0xc020160398 stack=[0xc020160000, 0xc040160000]\n\tmorebuf={pc:0x4d1b2c sp:0xc0201603a8 lr:0x0}\n" +
		"\tsched={pc:0x4d1a5e sp:0xc0201603a0 lr:0x0 bp:0xc0201603d0 ctxt:0x0}\nfatal error: stack overflow\n\nruntime stack:\n" +
		"runtime.throw({0x156ca9e?, 0x0?})\n\t/usr/local/go/src/runtime/panic.go:1229 +0x48\n\n" +
		"goroutine 28 gp=0x1582680e7c20 m=4 [running]:\ngithub.com/traefik/yaegi/interp.call.func9(0x15826f232420)\n\t/y/run.go:1304 +0xff1\n" +
		"...882912 frames elided...\ngonum.org/v1/gonum/mat.(*Dense).Mul(0x1)\n\t/g/mat/dense_arithmetic.go:10 +0x1\n\ngoroutine 21 [syscall]:\nsyscall.Syscall(0x0)\n"))
	got := crashSummary(tb.Report(), tb.Headline())
	want := []string{"runtime: goroutine stack exceeds 1000000000-byte limit",
		"The crashing goroutine was in this compiled code (the innermost call first):",
		"gonum.org/v1/gonum/mat.(*Dense).Mul(0x1)", "\t/g/mat/dense_arithmetic.go:10 +0x1"}
	if !slices.Equal(got, want) {
		t.Errorf("summary %q\nwant    %q", got, want)
	}
}

// TestCrashSummaryConcurrentMap: a fatal error of Go's maps starts its trace with frames of
// Go's internal packages (internal/runtime/maps), which are machinery, not compiled code of
// the user's.
func TestCrashSummaryConcurrentMap(t *testing.T) {
	tb := newTailBuffer(40)
	tb.Write([]byte("fatal error: concurrent map writes\n\ngoroutine 7 gp=0xc000102a80 m=3 [running]:\n" +
		"internal/runtime/maps.fatal({0x5a1d2e?, 0x0?})\n\t/usr/local/go/src/runtime/panic.go:1058 +0x18\n" +
		"example.com/sim.(*Model).step(0xc0000b2000)\n\t/m/sim.go:42 +0x5c\n\ngoroutine 1 [chan receive]:\nmain.main()\n"))
	got := crashSummary(tb.Report(), tb.Headline())
	want := []string{"The crashing goroutine was in this compiled code (the innermost call first):",
		"example.com/sim.(*Model).step(0xc0000b2000)", "\t/m/sim.go:42 +0x5c"}
	if !slices.Equal(got, want) {
		t.Errorf("summary %q\nwant    %q", got, want)
	}
}
