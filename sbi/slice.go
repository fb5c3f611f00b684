package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/cancel"
)

// sliceSampler is coordinate-wise slice sampling with stepping out and shrinkage (Neal 2003,
// §4, Figs. 3 and 5) run on many chains in lockstep, so that every evaluation of the
// log-density is one batch over the chains that still need it (as sbi's
// slice_np_vectorized).
type sliceSampler struct {
	logp  func(theta *mat.Dense) []float64
	x     *mat.Dense // C×D current states
	lp    []float64
	width []float64
	rng   *rand.Rand
	ctx   context.Context // stops the run when done

	// updates, stepOuts and shrinks count, over all chains after burn-in, the coordinate
	// updates, the interval ends stepped out and the proposals rejected (MCMCHealth).
	updates, stepOuts, shrinks int
}

// maxStepOut and maxShrink bound the stepping-out and shrinkage loops of one update.
const (
	maxStepOut = 50
	maxShrink  = 100
)

// run returns n draws after burnIn sweeps, every thin sweeps. When s.ctx stops it, its error
// says how many draws were taken (none kept), and its progress bar's last message how many
// sweeps finished.
func (s *sliceSampler) run(n, burnIn, thin int) (_ *mat.Dense, err error) {
	C, D := s.x.Dims()
	s.lp = s.logp(s.x)
	for c, v := range s.lp {
		switch {
		case math.IsInf(v, 1):
			return nil, fmt.Errorf("ratio posterior (mcmc): chain %d starts at θ = %s, where the log-density is +Inf: %s", c, fmtPoint(s.x.RawRowView(c)), infiniteDensity)
		case math.IsInf(v, -1) || math.IsNaN(v):
			return nil, fmt.Errorf("ratio posterior (mcmc): chain %d starts where the log-density is %v", c, v)
		}
	}
	s.width = make([]float64, D)
	s.adaptWidth()
	perChain := (n + C - 1) / C
	out := mat.NewDense(n, D, nil)
	got := 0
	total := burnIn + perChain*thin
	progress := newProgressIn(s.ctx, "mcmc", total)
	sweeps := 0 // finished
	defer func() {
		err = cancel.FinishProgress(s.ctx, progress, cancel.Drawn(s.ctx, err, got, n), sweeps, total, "sweeps")
	}()
	for sweep := 1; sweep <= total; sweep++ {
		if err := cancel.Check(s.ctx, "mcmc"); err != nil {
			return nil, err
		}
		for d := 0; d < D; d++ {
			if err := s.update(d); err != nil {
				return nil, err
			}
		}
		if sweep <= burnIn {
			s.adaptWidth()
			s.updates, s.stepOuts, s.shrinks = 0, 0, 0
		} else if (sweep-burnIn)%thin == 0 {
			for c := 0; c < C && got < n; c++ {
				copy(out.RawRowView(got), s.x.RawRowView(c))
				got++
			}
		}
		progress.Add(1)
		sweeps = sweep
	}
	return out, nil
}

// adaptWidth sets each coordinate's initial slice width to twice the spread of the chains.
func (s *sliceSampler) adaptWidth() {
	C, D := s.x.Dims()
	for d := 0; d < D; d++ {
		var m, v float64
		for c := 0; c < C; c++ {
			m += s.x.At(c, d) / float64(C)
		}
		for c := 0; c < C; c++ {
			e := s.x.At(c, d) - m
			v += e * e / float64(C)
		}
		w := 2 * math.Sqrt(v)
		if !(w > 1e-8) {
			w = math.Max(1e-2, 0.1*math.Abs(m))
		}
		s.width[d] = w
	}
}

// update moves coordinate d of every chain by one slice-sampling step. It stops with an
// error at a point where the log-density is +Inf (see evalAt).
func (s *sliceSampler) update(d int) error {
	C, _ := s.x.Dims()
	s.updates += C
	y := make([]float64, C)
	L, R := make([]float64, C), make([]float64, C)
	for c := 0; c < C; c++ {
		y[c] = s.lp[c] - s.rng.ExpFloat64()
		L[c] = s.x.At(c, d) - s.width[d]*s.rng.Float64()
		R[c] = L[c] + s.width[d]
	}
	all := make([]int, C)
	for c := range all {
		all[c] = c
	}
	// Step out both ends while they are inside the slice.
	for _, end := range [][]float64{L, R} {
		sign := -1.0
		if &end[0] == &R[0] {
			sign = 1
		}
		active := append([]int(nil), all...)
		for step := 0; step < maxStepOut && len(active) > 0; step++ {
			lp, err := s.evalAt(active, d, end)
			if err != nil {
				return err
			}
			next := active[:0]
			for k, c := range active {
				if lp[k] > y[c] {
					end[c] += sign * s.width[d]
					s.stepOuts++
					next = append(next, c)
				}
			}
			active = next
		}
	}
	// Shrink until a point inside the slice is found.
	active := all
	prop := make([]float64, C)
	for it := 0; it < maxShrink && len(active) > 0; it++ {
		for _, c := range active {
			prop[c] = L[c] + s.rng.Float64()*(R[c]-L[c])
		}
		lp, err := s.evalAt(active, d, prop)
		if err != nil {
			return err
		}
		next := active[:0]
		for k, c := range active {
			if lp[k] > y[c] {
				s.x.Set(c, d, prop[c])
				s.lp[c] = lp[k]
				continue
			}
			s.shrinks++
			if prop[c] < s.x.At(c, d) {
				L[c] = prop[c]
			} else {
				R[c] = prop[c]
			}
			next = append(next, c)
		}
		active = next
	}
	return nil
}

// evalAt evaluates the log-density at the states of the chains in idx with coordinate d
// replaced by val[c]. It returns an error at a point where the log-density is +Inf: no point
// of a slice lies above it, so a chain that moved there would stay for ever; and, without
// evaluating, once the context is done.
func (s *sliceSampler) evalAt(idx []int, d int, val []float64) ([]float64, error) {
	if err := cancel.Check(s.ctx, "mcmc"); err != nil {
		return nil, err
	}
	_, D := s.x.Dims()
	m := mat.NewDense(len(idx), D, nil)
	for k, c := range idx {
		row := m.RawRowView(k)
		copy(row, s.x.RawRowView(c))
		row[d] = val[c]
	}
	lp := s.logp(m)
	for k, v := range lp {
		if math.IsInf(v, 1) {
			return nil, fmt.Errorf("ratio posterior (mcmc): chain %d reached θ = %s, where the log-density is +Inf: %s", idx[k], fmtPoint(m.RawRowView(k)), infiniteDensity)
		}
	}
	return lp, nil
}

// infiniteDensity says why sampling stops at a point where the log-density is +Inf.
const infiniteDensity = "no density is infinite, so the estimator is degenerate there (its output overflowed: are its weights finite?), and a sampler would return copies of such a point; check the estimator's LogProb there, then retrain it (more simulations, stronger regularization) or use another estimator"

// fmtPoint writes a parameter point in full precision, so that it can be evaluated again.
func fmtPoint(theta []float64) string {
	parts := make([]string, len(theta))
	for i, v := range theta {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
