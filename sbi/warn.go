package sbi

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Warnings are sentences about a result that is returned anyway but should not be trusted
// blindly: an observation outside the training simulations, MCMC chains that did not mix. They
// go to standard error, which a notebook shows as a warning box and a terminal prints apart
// from the output. Each kind of warning is printed at most warnBurst times per warnWindow; the
// next one printed after a pause says how many were left out. The result that carries the
// numbers (Posterior checks, MCMCHealth) is always available from the call itself.
const (
	warnBurst  = 3
	warnWindow = time.Minute
)

// warnOutput returns where warnings are written; it is read at every warning, because a
// notebook worker points os.Stderr at its own pipe. Tests replace it.
var warnOutput = func() io.Writer { return os.Stderr }

var warnings = struct {
	sync.Mutex
	kinds map[string]*warnState
}{kinds: map[string]*warnState{}}

type warnState struct {
	start   time.Time // of the current window
	printed int       // in the current window
	skipped int       // left out since the last one printed
}

// warnf writes "sbi: warning: …" unless warnings of this kind have been printed warnBurst
// times in the last warnWindow.
func warnf(kind, format string, args ...any) {
	warnings.Lock()
	defer warnings.Unlock()
	st := warnings.kinds[kind]
	now := time.Now()
	if st == nil {
		st = &warnState{start: now}
		warnings.kinds[kind] = st
	}
	if now.Sub(st.start) > warnWindow {
		st.start, st.printed = now, 0
	}
	if st.printed >= warnBurst {
		st.skipped++
		return
	}
	st.printed++
	msg := fmt.Sprintf(format, args...)
	if st.skipped > 0 {
		msg += fmt.Sprintf(" (%d more warnings of this kind were not printed)", st.skipped)
		st.skipped = 0
	}
	fmt.Fprintf(warnOutput(), "sbi: warning: %s\n", msg)
}
