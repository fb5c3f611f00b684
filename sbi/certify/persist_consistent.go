package certify

import (
	"fmt"
	"math"
	"slices"

	"github.com/gosbi/gosbi/sbi/diag"
)

// numberTolerance is how far a saved coverage or interval bound may lie from the one its counts
// give: they are recomputed by the same code, so only rounding between machines separates them.
const numberTolerance = 1e-9

// checkNumbers recomputes every decision of f from its counts and the target and returns an
// error naming the first field whose verdict, status, interval or coverage the counts do not
// give, a coverage result that disagrees with its decision, or an observation certified
// without the evidence behind it. On success the decisions of f are replaced by the recomputed
// ones, whose reasons are those of the counts.
func (f *file) checkNumbers() error {
	if err := f.Target.check(); err != nil {
		return fmt.Errorf("%w (the certificate file's target)", err)
	}
	var err error
	if f.Final, err = recomputed("final", f.Final, f.Target); err != nil {
		return err
	}
	if err := coverageAgrees("after", f.After, "final", f.Final); err != nil {
		return err
	}
	for i := range f.Steps {
		s := &f.Steps[i]
		field := fmt.Sprintf("steps[%d].Decision", i)
		if s.Decision, err = recomputed(field, s.Decision, f.Target); err != nil {
			return err
		}
		if err := coverageAgrees(fmt.Sprintf("steps[%d].Coverage", i), s.Coverage, field, s.Decision); err != nil {
			return err
		}
	}
	for i := range f.Observations {
		o := &f.Observations[i]
		field := fmt.Sprintf("observations[%d]", i)
		if sc := o.ScoreCal; sc != nil {
			if sc.Decision, err = recomputed(field+".ScoreCal.Decision", sc.Decision, f.Target); err != nil {
				return err
			}
			if err := coverageAgrees(field+".ScoreCal.Coverage", sc.Coverage, field+".ScoreCal.Decision", sc.Decision); err != nil {
				return err
			}
		}
		if err := f.backed(field, o); err != nil {
			return err
		}
	}
	return nil
}

// recomputed is Decide's decision for the counts of d against t (nil for nil), or an error
// naming the field of d that the counts do not give; a verdict or level status that is none of
// this package's values is named as such, with the known values.
func recomputed(field string, d *Decision, t Target) (*Decision, error) {
	if d == nil {
		return nil, nil
	}
	if !sameTarget(d.Target, t) {
		return nil, fmt.Errorf("certify: the certificate file's %s.Target (%s) is not the certificate's target (%s); the file was edited or damaged", field, d.Target, t)
	}
	if d.N < 1 || len(d.Checks) != len(t.Levels) {
		return nil, fmt.Errorf("certify: the certificate file's %s has %d level checks on %d test pairs; the target has %d levels and a decision needs at least one pair; the file is damaged",
			field, len(d.Checks), d.N, len(t.Levels))
	}
	cov := &diag.CoverageResult{N: d.N, Levels: t.Levels, Coverage: make([]float64, len(d.Checks))}
	for k, c := range d.Checks {
		cf := fmt.Sprintf("%s.Checks[%d]", field, k)
		if math.Abs(c.Level-t.Levels[k]) > numberTolerance {
			return nil, fmt.Errorf("certify: the certificate file's %s is at level %v; the target's level %d is %v; the file was edited or damaged", cf, c.Level, k, t.Levels[k])
		}
		if c.N != d.N || c.Count < 0 || c.Count > c.N {
			return nil, fmt.Errorf("certify: the certificate file's %s counts %d of %d test pairs, in a decision on %d; the file was edited or damaged", cf, c.Count, c.N, d.N)
		}
		cov.Coverage[k] = float64(c.Count) / float64(c.N)
	}
	w, err := Decide(cov, t)
	if err != nil {
		return nil, fmt.Errorf("%w (the certificate file's %s)", err, field)
	}
	for k, c := range d.Checks {
		if err := sameCheck(fmt.Sprintf("%s.Checks[%d]", field, k), c, w.Checks[k]); err != nil {
			return nil, err
		}
	}
	if d.Verdict != w.Verdict {
		if err := checkOneOf(field+".Verdict", d.Verdict, knownVerdicts); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("certify: the certificate file's %s.Verdict is %q, but its counts give %q: %s; the file was edited or damaged", field, d.Verdict, w.Verdict, w.Reason)
	}
	return w, nil
}

// sameCheck returns an error naming the field cf of the saved level check c when its coverage,
// interval or status is not that of w, the check its count gives.
func sameCheck(cf string, c, w LevelCheck) error {
	if !near(c.Coverage, w.Coverage) || !near(c.Lower, w.Lower) || !near(c.Upper, w.Upper) {
		return fmt.Errorf("certify: the certificate file's %s shows coverage %v with the interval [%v, %v], but %d of %d test pairs give %v with [%v, %v]; the file was edited or damaged",
			cf, c.Coverage, c.Lower, c.Upper, c.Count, c.N, w.Coverage, w.Lower, w.Upper)
	}
	if c.Status != w.Status {
		if err := checkOneOf(cf+".Status", c.Status, knownStatuses); err != nil {
			return err
		}
		return fmt.Errorf("certify: the certificate file's %s has the status %q, but %d of %d test pairs give %q against the target; the file was edited or damaged",
			cf, c.Status, c.Count, c.N, w.Status)
	}
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) <= numberTolerance }

func sameTarget(a, b Target) bool {
	return a.Tolerance == b.Tolerance && a.Alpha == b.Alpha && a.Conservative == b.Conservative && slices.Equal(a.Levels, b.Levels)
}

// coverageAgrees returns an error when the coverage result cov (nil: none) does not hold the
// counts of its decision d at every target level.
func coverageAgrees(covField string, cov *diag.CoverageResult, decField string, d *Decision) error {
	if cov == nil || d == nil {
		return nil
	}
	if cov.N != d.N {
		return fmt.Errorf("certify: the certificate file's %s is on %d test pairs, its decision %s on %d; the file was edited or damaged", covField, cov.N, decField, d.N)
	}
	for k, c := range d.Checks {
		j := levelIndex(cov.Levels, c.Level)
		if j < 0 || j >= len(cov.Coverage) {
			return fmt.Errorf("certify: the certificate file's %s has no coverage at level %v, which %s.Checks[%d] judges; the file is damaged", covField, c.Level, decField, k)
		}
		if !near(cov.Coverage[j], c.Coverage) {
			return fmt.Errorf("certify: the certificate file's %s shows the coverage %v at level %v, but %s.Checks[%d] counts %d of %d test pairs (%v); the file was edited or damaged",
				covField, cov.Coverage[j], c.Level, decField, k, c.Count, c.N, c.Coverage)
		}
	}
	return nil
}

// backed returns an error when observation o is certified without the evidence that certifies
// it: the test of its score calibration, or else the global verdict with a misspecification
// check that admits it; in either case no local test that rejects.
func (f *file) backed(field string, o *ObservationCheck) error {
	if o.Verdict != Certified {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("certify: the certificate file's %s is certified, but %s; the file was edited or damaged", field, why)
	}
	if sc := o.ScoreCal; sc != nil {
		switch {
		case sc.Decision.Verdict != Certified:
			return refuse(fmt.Sprintf("the test of its score calibration is %s", sc.Decision.Verdict))
		case sc.Local != nil && sc.Local.Reject():
			return refuse("the local test rejects its score-calibrated posterior")
		}
		return nil
	}
	m := o.Misspec
	switch {
	case f.Final.Verdict != Certified:
		return refuse(fmt.Sprintf("the final verdict is %s and it was not score-calibrated", f.Final.Verdict))
	case m == nil || !(m.PValue > m.Alpha) || !m.CanReject():
		return refuse("no misspecification check that can reject admitted it")
	case o.Local != nil && o.Local.Reject():
		return refuse("the local test rejects the posterior there")
	}
	return nil
}
