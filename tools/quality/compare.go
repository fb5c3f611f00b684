package main

import (
	"fmt"
	"io"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// claim is a comparison issue #27 asks for between two rows run side by side on the same
// observations: the challenger beats the base (Strict: its mean C2ST is lower) or is at least
// as good (its mean C2ST is lower or equal).
type claim struct {
	Base, Challenger string
	Strict           bool
}

// claims are the comparisons the tool asserts when both of their rows are run.
var claims = []claim{
	{Base: "npe:two_moons", Challenger: "tsnpe:two_moons", Strict: true},
	{Base: "npe:slcp", Challenger: "tsnpe:slcp", Strict: true},
	{Base: "nre:two_moons", Challenger: "nrec:two_moons"},
}

// difference is the paired difference challenger − base of C2ST over the observations both
// rows scored: its mean and the mean's standard error, sd/√n with the sample standard
// deviation of the n per-observation differences.
type difference struct {
	Mean, SE float64
	N        int
}

// pairedDifference returns the difference of challenger and base, observation by observation.
// It needs the same observations in both (equal lengths) and at least two of them.
func pairedDifference(base, challenger []float64) (difference, error) {
	if len(base) != len(challenger) {
		return difference{}, fmt.Errorf("the rows scored %d and %d observations, expected the same observations in both", len(base), len(challenger))
	}
	d := make([]float64, len(base))
	for i := range base {
		d[i] = challenger[i] - base[i]
	}
	if len(d) < 2 {
		return difference{}, fmt.Errorf("%d observation(s), expected at least 2 for a standard error", len(d))
	}
	return difference{Mean: mean(d), SE: standardError(d), N: len(d)}, nil
}

// holds reports whether the claim holds for the difference d: a lower mean C2ST for a strict
// claim, a lower or equal one otherwise.
func (c claim) holds(d difference) bool {
	if c.Strict {
		return d.Mean < 0
	}
	return d.Mean <= 0
}

// noise says whether the difference is beyond noise: |d|/s.e. above Student's t quantile at
// 0.975 with n − 1 degrees of freedom (a two-sided paired t-test at 5%, which assumes the
// per-observation differences roughly normal). With few observations the quantile is large
// (4.30 for n = 3, 2.26 for n = 10).
func noise(d difference) string {
	crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(d.N - 1)}.Quantile(0.975)
	z := math.Abs(d.Mean) / d.SE
	if z > crit {
		return fmt.Sprintf("beyond noise (|d| = %.1f s.e. > %.2f, paired t-test at 5%%)", z, crit)
	}
	return fmt.Sprintf("within noise (|d| = %.1f s.e. ≤ %.2f, paired t-test at 5%%)", z, crit)
}

// printComparisons prints every claim whose two rows are in results, and for each row with an
// sbibm number the difference from it, and reports whether every claim printed holds. The sbibm
// lines are informative: the row's bar is what the tool asserts against sbibm.
func printComparisons(w io.Writer, results map[string][]float64) bool {
	ok := true
	header := false
	head := func() {
		if !header {
			fmt.Fprintf(w, "\n| comparison | d = mean C2ST difference ± s.e. (n) | claim | noise |\n|---|---|---|---|\n")
			header = true
		}
	}
	for _, c := range claims {
		base, hasBase := results[c.Base]
		ch, hasCh := results[c.Challenger]
		if !hasBase || !hasCh {
			continue
		}
		head()
		verb := "at least as good as"
		if c.Strict {
			verb = "beats"
		}
		d, err := pairedDifference(base, ch)
		if err != nil {
			fmt.Fprintf(w, "| %s %s %s | – | inconclusive: %v | – |\n", c.Challenger, verb, c.Base, err)
			ok = false
			continue
		}
		verdict := "holds"
		if !c.holds(d) {
			verdict, ok = "FAILS", false
		}
		fmt.Fprintf(w, "| %s %s %s | %+.3f ± %.3f (%d) | %s | %s |\n", c.Challenger, verb, c.Base, d.Mean, d.SE, d.N, verdict, noise(d))
	}
	rows := make([]string, 0, len(results))
	for r := range results {
		if _, has := sbibm[r]; has {
			rows = append(rows, r)
		}
	}
	sort.Strings(rows)
	for _, r := range rows {
		c2st := results[r]
		if len(c2st) < 2 {
			continue
		}
		head()
		// sbibm's number is taken as exact: the s.e. is that of this run's mean alone.
		d := difference{Mean: mean(c2st) - sbibm[r], SE: standardError(c2st), N: len(c2st)}
		verdict := "at least as good (not asserted: the bar is)"
		if d.Mean > 0 {
			verdict = "worse (not asserted: the bar is)"
		}
		fmt.Fprintf(w, "| %s vs sbibm's %.2f | %+.3f ± %.3f (%d) | %s | %s |\n", r, sbibm[r], d.Mean, d.SE, d.N, verdict, noise(d))
	}
	return ok
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// standardError is the standard error of the mean of x, s/√n with the sample standard
// deviation s (n − 1 in its denominator); NaN for fewer than two values.
func standardError(x []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return math.NaN()
	}
	m := mean(x)
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / (n - 1) / n)
}
