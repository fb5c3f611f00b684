package certify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// fileFormat names the certificate file format; fileVersion is the latest version Load reads
// (1 to fileVersion). Version 2 (plainVersion) added the local test, score calibration and
// notes of each observation (a version-1 file has none of them); a build that reads only
// version 1 refuses a version-2 file rather than drop its score-calibration maps unseen.
// Version 3 (trialsVersion) added the trials of an estimator of i.i.d. trials
// (sbi.AmortizedTrials) and NaN (padding) in the observations and the conformal calibration
// pairs, written as null. Save writes version 3 for such a certificate alone and version 2
// otherwise, so that a build that reads version 2 refuses only a file whose estimator it would
// read as one of single trials or whose null it would read as 0.
const (
	fileFormat    = "gosbi certificate"
	fileVersion   = trialsVersion
	plainVersion  = 2 // the version Save writes for a certificate without trials or NaN
	trialsVersion = 3 // the first version with Trials and null for NaN
)

// file is the JSON form of a certificate: every number it shows, the estimator in sbi's own
// file format, and the conformal calibration pairs, from which Load recomputes the thresholds
// (and checks them against the saved ones) so that a loaded calibration is whole.
type file struct {
	Format       string               `json:"format"`
	Version      int                  `json:"version"`
	Target       Target               `json:"target"`
	Chosen       string               `json:"chosen"`
	Final        *Decision            `json:"final"`
	Before       *diag.CoverageResult `json:"before,omitempty"`
	After        *diag.CoverageResult `json:"after"`
	SBC          *diag.SBCResult      `json:"sbc,omitempty"`
	TARP         *diag.TARPResult     `json:"tarp,omitempty"`
	Steps        []Step               `json:"steps"`
	Remedies     []Remedy             `json:"remedies"`
	Tried        int                  `json:"tried"`
	Observations []ObservationCheck   `json:"observations"`
	Notes        []string             `json:"notes,omitempty"`
	Budget       Budget               `json:"budget"`
	Seed         uint64               `json:"seed"`
	Versions     string               `json:"versions"`
	Elapsed      time.Duration        `json:"elapsed_ns"`
	Thresholds   []float64            `json:"conformal_thresholds,omitempty"`
	CalTheta     *matrix              `json:"conformal_theta,omitempty"`
	CalX         *matrix              `json:"conformal_x,omitempty"`
	Estimator    []byte               `json:"estimator"` // sbi's estimator file, base64 in JSON
	// Trials and Sampler, for an sbi.AmortizedTrials: Estimator is the estimator of single
	// trials it serves, and the certified one is its TrialsWith(Trials, *Sampler).
	Trials  int                `json:"trials,omitempty"`
	Sampler *sbi.SamplerConfig `json:"trials_sampler,omitempty"`
	// ObservationX holds the observations' X, in place of Observations[i].X, where one holds
	// NaN (padding), which JSON has no number for.
	ObservationX []jsonFloats `json:"observation_x,omitempty"`
}

type matrix struct {
	Rows, Cols int
	Data       jsonFloats
}

// jsonFloats is a vector whose NaN (padding of observations of fewer trials) JSON writes as
// null; a null reads back as NaN.
type jsonFloats []float64

func (v jsonFloats) MarshalJSON() ([]byte, error) {
	out := make([]*float64, len(v))
	for i := range v {
		if !math.IsNaN(v[i]) {
			out[i] = &v[i]
		}
	}
	return json.Marshal(out)
}

func (v *jsonFloats) UnmarshalJSON(b []byte) error {
	var in []*float64
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*v = make(jsonFloats, len(in))
	for i, p := range in {
		(*v)[i] = math.NaN()
		if p != nil {
			(*v)[i] = *p
		}
	}
	return nil
}

// hasNaN reports whether a value of v is NaN.
func hasNaN(v []float64) bool {
	for _, f := range v {
		if math.IsNaN(f) {
			return true
		}
	}
	return false
}

// Save writes the certificate with its estimator to w (JSON). The estimator must be one of the
// library's (an sbi.Estimator, which can save itself); a posterior made by hand cannot be
// saved, and Save says so.
func (c *Certificate) Save(w io.Writer) error {
	var saved any = c.Estimator
	trials, ok := c.Estimator.(*sbi.AmortizedTrials)
	if ok {
		saved = trials.Estimator() // the estimator of single trials; Trials and Sampler say how it serves
	}
	saver, ok := saved.(interface{ Save(io.Writer) error })
	if !ok {
		return fmt.Errorf("certify: the certified estimator (%T) cannot be saved: only the library's estimators (sbi.Estimator) can", saved)
	}
	var est bytes.Buffer
	if err := saver.Save(&est); err != nil {
		return fmt.Errorf("certify: saving the estimator: %w", err)
	}
	f := file{Format: fileFormat, Version: plainVersion, Target: c.Target, Chosen: c.Chosen, Final: c.Final,
		Before: c.Before, After: c.After, SBC: c.SBC, TARP: c.TARP, Steps: c.Steps, Remedies: c.Remedies, Tried: c.Tried,
		Observations: nanFree(c.Observations), Notes: c.Notes, Budget: c.Budget, Seed: c.Seed, Versions: c.Versions, Elapsed: c.Elapsed,
		Estimator: est.Bytes()}
	if trials != nil {
		s := trials.Sampler()
		f.Version, f.Trials, f.Sampler = trialsVersion, trials.Trials(), &s
	}
	for _, o := range c.Observations {
		if hasNaN(o.X) {
			f.padObservations()
			break
		}
	}
	if c.Conformal != nil {
		if c.calTheta == nil {
			return errors.New("certify: the certificate's conformal calibration pairs are missing; it cannot be saved")
		}
		for _, cf := range c.Conformal {
			f.Thresholds = append(f.Thresholds, cf.Threshold)
		}
		f.CalTheta, f.CalX = denseToMatrix(c.calTheta), denseToMatrix(c.calX)
		if hasNaN(f.CalTheta.Data) || hasNaN(f.CalX.Data) {
			f.Version = trialsVersion
		}
	}
	enc := json.NewEncoder(w)
	if err := enc.Encode(&f); err != nil {
		return fmt.Errorf("certify: writing the certificate: %w", err)
	}
	return nil
}

func denseToMatrix(m *mat.Dense) *matrix {
	r, c := m.Dims()
	data := make([]float64, 0, r*c)
	for i := range r {
		data = append(data, m.RawRowView(i)...)
	}
	return &matrix{Rows: r, Cols: c, Data: data}
}

func (m *matrix) dense() (*mat.Dense, error) {
	if m == nil || m.Rows < 1 || m.Cols < 1 || len(m.Data) != m.Rows*m.Cols {
		return nil, errors.New("certify: a matrix in the certificate file is missing or has the wrong size")
	}
	return mat.NewDense(m.Rows, m.Cols, m.Data), nil
}

// SaveFile writes the certificate to path atomically (a reader sees the old file or the whole
// new one).
func (c *Certificate) SaveFile(path string) error {
	return atomicfile.Write(path, 0o644, c.Save)
}

// MustSaveFile is SaveFile for notebook cells: it panics with SaveFile's error.
func (c *Certificate) MustSaveFile(path string) {
	if err := c.SaveFile(path); err != nil {
		panic(err)
	}
}

// thresholdTolerance is how far, relative to its magnitude (at least 1), a recomputed conformal
// threshold may lie from the saved one. The scores are log-densities, which the estimators
// evaluate in float32 where the CPU has the float32 kernel (flow.EvalConfig) and in float64
// elsewhere: a file saved on one machine and loaded on another sees their difference, float32
// rounding carried through the networks (about 1e-8 relative for the flows of sbi's defaults,
// a bound of about 1e-5 for the widest). Another estimator moves the threshold in its first
// digits.
const thresholdTolerance = 1e-5

// Load reads a certificate written by Save, with its estimator, and recomputes its conformal
// thresholds from the saved calibration pairs: a file whose thresholds do not match (an
// estimator that is not the one certified) is refused. So is a file with a verdict, level
// status, claim or remedy that is not one of this package's values (Certified, NotCertified,
// Inconclusive; LevelPass, LevelFail, LevelUndecided; ClaimMarginal, ClaimLocal or none; the
// Remedy constants): the error names the field, its value and the known values. Every
// decision in the file (the final verdict, the steps', the score calibrations') is recomputed
// from its counts against the certificate's target: a file whose verdict, level status,
// interval or coverage does not follow from its counts, or whose coverage results disagree
// with their decisions, is refused, and the reasons shown are those of the counts. So is an
// observation certified without the evidence behind it (a certified final verdict with a
// misspecification check that admitted it, or a certified score calibration; in either case
// no local test that rejects).
func Load(r io.Reader) (*Certificate, error) {
	var f file
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("certify: reading the certificate: %w", err)
	}
	if f.Format != fileFormat {
		return nil, fmt.Errorf("certify: not a certificate file (format %q, want %q)", f.Format, fileFormat)
	}
	if f.Version < 1 || f.Version > fileVersion {
		return nil, fmt.Errorf("certify: certificate file version %d; this build reads versions 1 to %d", f.Version, fileVersion)
	}
	if f.Final == nil || f.After == nil {
		return nil, errors.New("certify: the certificate file has no final verdict")
	}
	if err := f.checkKnown(); err != nil {
		return nil, err
	}
	if err := f.checkNumbers(); err != nil {
		return nil, err
	}
	est, err := f.estimator()
	if err != nil {
		return nil, err
	}
	if f.ObservationX != nil {
		if len(f.ObservationX) != len(f.Observations) || f.Version < trialsVersion {
			return nil, fmt.Errorf("certify: the certificate file (version %d) has %d observation vectors for %d observations, expected one each in a file of version %d or later",
				f.Version, len(f.ObservationX), len(f.Observations), trialsVersion)
		}
		for i := range f.Observations {
			f.Observations[i].X = f.ObservationX[i]
		}
	}
	c := &Certificate{Target: f.Target, Estimator: est, Chosen: f.Chosen, Final: f.Final, Before: f.Before,
		After: f.After, SBC: f.SBC, TARP: f.TARP, Steps: f.Steps, Remedies: f.Remedies, Tried: f.Tried, Observations: withNaN(f.Observations),
		Notes: f.Notes, Budget: f.Budget, Seed: f.Seed, Versions: f.Versions, Elapsed: f.Elapsed}
	if len(f.Thresholds) > 0 {
		if len(f.Thresholds) != len(f.Target.Levels) {
			return nil, fmt.Errorf("certify: %d conformal thresholds for %d target levels", len(f.Thresholds), len(f.Target.Levels))
		}
		theta, err := f.CalTheta.dense()
		if err != nil {
			return nil, err
		}
		x, err := f.CalX.dense()
		if err != nil {
			return nil, err
		}
		confs, err := conformalAt(est, theta, x, f.Target.Levels)
		if err != nil {
			return nil, err
		}
		for k, cf := range confs {
			if math.Abs(cf.Threshold-f.Thresholds[k]) > thresholdTolerance*max(1, math.Abs(f.Thresholds[k])) {
				return nil, fmt.Errorf("certify: the saved estimator gives the conformal threshold %v at level %v, the certificate says %v: the file does not hold the estimator that was certified",
					cf.Threshold, f.Target.Levels[k], f.Thresholds[k])
			}
		}
		c.Conformal, c.calTheta, c.calX = confs, theta, x
	}
	for i, o := range c.Observations {
		if o.ScoreCal != nil {
			if err := o.ScoreCal.Map.check(); err != nil {
				return nil, fmt.Errorf("observation %d: %w", i, err)
			}
		}
	}
	return c, nil
}

// padObservations moves the observations' X to ObservationX, which writes their NaN, and
// makes f a version-3 file.
func (f *file) padObservations() {
	f.Version = trialsVersion
	f.ObservationX = make([]jsonFloats, len(f.Observations))
	for i := range f.Observations {
		f.ObservationX[i] = f.Observations[i].X
		f.Observations[i].X = nil
	}
}

// estimator loads the certified estimator of f: the saved one, or for a certificate of an
// sbi.AmortizedTrials the one serving the saved estimator of single trials.
func (f *file) estimator() (sbi.Amortized, error) {
	est, err := sbi.Load(bytes.NewReader(f.Estimator))
	if err != nil {
		return nil, fmt.Errorf("certify: loading the certified estimator: %w", err)
	}
	if f.Trials == 0 && f.Sampler == nil {
		return est, nil
	}
	type trialsServer interface {
		TrialsWith(n int, s sbi.SamplerConfig) *sbi.AmortizedTrials
	}
	ts, ok := est.(trialsServer)
	switch {
	case f.Version < trialsVersion:
		return nil, fmt.Errorf("certify: the certificate file of version %d has trials, which version %d added", f.Version, trialsVersion)
	case f.Trials < 1 || f.Sampler == nil:
		return nil, fmt.Errorf("certify: the certificate file has trials %d and sampler %v, expected at least 1 trial and a sampler", f.Trials, f.Sampler)
	case !ok:
		return nil, fmt.Errorf("certify: the certificate file serves trials from a %T, which serves none (expected an NLE, MNLE, NRE or NREEnsemble)", est)
	}
	return ts.TrialsWith(f.Trials, *f.Sampler), nil
}

var (
	knownVerdicts = []Verdict{Certified, NotCertified, Inconclusive}
	knownStatuses = []LevelStatus{LevelPass, LevelFail, LevelUndecided}
	knownClaims   = []Claim{"", ClaimMarginal, ClaimLocal}
	knownRemedies = []Remedy{RemedyMoreSimulations, RemedyRegularizer, RemedyConformal, RemedyScoreCalibration}
)

// checkKnown returns an error naming the first remedy, observation verdict or claim of f that
// is not one of the known values, or a score calibration saved without its test, or nil. The
// verdicts and level statuses of the decisions are checked where they are recomputed
// (checkNumbers).
func (f *file) checkKnown() error {
	for i, r := range f.Remedies {
		if err := checkOneOf(fmt.Sprintf("remedies[%d]", i), r, knownRemedies); err != nil {
			return err
		}
	}
	for i, o := range f.Observations {
		field := fmt.Sprintf("observations[%d]", i)
		if err := checkOneOf(field+".Verdict", o.Verdict, knownVerdicts); err != nil {
			return err
		}
		if err := checkOneOf(field+".Claim", o.Claim, knownClaims); err != nil {
			return err
		}
		if o.ScoreCal != nil {
			if o.ScoreCal.Decision == nil || o.ScoreCal.Before == nil {
				return fmt.Errorf("%s.ScoreCal holds no Decision or no Before: a score calibration is saved with its test and the coverage before it; the file is damaged", field)
			}
		}
	}
	return nil
}

// checkOneOf returns an error when v is none of known.
func checkOneOf[T ~string](field string, v T, known []T) error {
	for _, k := range known {
		if v == k {
			return nil
		}
	}
	q := make([]string, len(known))
	for i, k := range known {
		q[i] = strconv.Quote(string(k))
	}
	return fmt.Errorf("certify: the certificate file's %s is %q, which this build does not know (known values: %s); the file was written by another version or edited",
		field, string(v), strings.Join(q, ", "))
}

// nanFree copies the observations with the NaN that JSON cannot hold (an L-C2ST observation
// p-value that could not be computed) written as −1; withNaN undoes it.
func nanFree(obs []ObservationCheck) []ObservationCheck {
	return mapLocal(obs, func(r *diag.LC2STResult) {
		if math.IsNaN(r.ObservationPValue) {
			r.ObservationPValue = -1
		}
	})
}

func withNaN(obs []ObservationCheck) []ObservationCheck {
	return mapLocal(obs, func(r *diag.LC2STResult) {
		if r.ObservationPValue < 0 {
			r.ObservationPValue = math.NaN()
		}
	})
}

// mapLocal copies obs and applies f to copies of their local-test results.
func mapLocal(obs []ObservationCheck, f func(*diag.LC2STResult)) []ObservationCheck {
	out := append([]ObservationCheck(nil), obs...)
	for i := range out {
		if out[i].Local != nil {
			l := *out[i].Local
			f(&l)
			out[i].Local = &l
		}
		if out[i].ScoreCal != nil && out[i].ScoreCal.Local != nil {
			sc := *out[i].ScoreCal
			l := *sc.Local
			f(&l)
			sc.Local = &l
			out[i].ScoreCal = &sc
		}
	}
	return out
}

// conformalAt calibrates est on the pairs (theta, x) at every level.
func conformalAt(est sbi.Amortized, theta, x *mat.Dense, levels []float64) ([]*calib.Conformal, error) {
	base, err := calib.NewConformal(est, theta, x, 1-levels[0])
	if err != nil {
		return nil, fmt.Errorf("certify: conformal calibration: %w", err)
	}
	confs := make([]*calib.Conformal, len(levels))
	for i, l := range levels {
		confs[i] = base.WithAlpha(1 - l)
	}
	return confs, nil
}

// LoadFile reads a certificate file written by SaveFile.
func LoadFile(path string) (*Certificate, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	defer fh.Close()
	c, err := Load(fh)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return c, nil
}

// MustLoadFile is LoadFile for notebook cells: it panics with LoadFile's error.
func MustLoadFile(path string) *Certificate { return safe.Must(LoadFile(path)) }
