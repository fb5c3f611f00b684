package certify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/internal/sat"
)

// Remedy is a step Certify may take when a diagnosis fails.
type Remedy string

// The remedies, in the order DefaultRemedies applies them (the order of issue 32: more
// simulations if the budget allows; the balancing or coverage penalty; conformal regions;
// score calibration for a given observation).
const (
	// RemedyMoreSimulations trains a fresh estimator from Config.New on the training set plus a
	// reserve of Config.MoreSimulations simulations that nothing else uses (drawn only when
	// this remedy runs), with the same training configuration and seed, and diagnoses it on a
	// check set of its own. It needs an estimator to retrain (not Config.Trained) and a
	// reserve; otherwise it is skipped and the certificate says why.
	RemedyMoreSimulations Remedy = "more simulations"
	// RemedyRegularizer trains a fresh estimator from Config.New on every training simulation
	// drawn so far (the reserve of RemedyMoreSimulations included once drawn) with a regularizer (Config.Penalty): the balancing penalty
	// of BNRE / balanced NRE-C (calib.NewBalanceRegularizer) for a ratio estimator with the
	// NRE-A or NRE-C loss, the differentiable coverage regularizer of CalNPE/CalNRE
	// (calib.NewCoverageRegularizer; the two-sided objective, or the conservative one when the
	// target is Conservative) for any other. It needs Config.New (or the default NPE) and an
	// estimator whose Train accepts the regularizer; otherwise it is skipped and the
	// certificate says why.
	RemedyRegularizer Remedy = "coverage regularizer"
	// RemedyConformal replaces the HPD regions of the best estimator so far by split-conformal
	// regions {θ : −log q(θ|x) ≤ τ_L}, one threshold per target level, calibrated on a set of
	// fresh simulations of its own (Config.ConformalSimulations; calib.NewConformal). Averaged
	// over calibration sets their marginal coverage is at least L whatever the estimator (at
	// most L + 1/(n+1) with n calibration pairs); the coverage of one calibration varies
	// around it by about √(L(1−L)/n), which is why its set is by default ConformalTestRatio
	// times the final test set. It does not depend on the estimator being good.
	RemedyConformal Remedy = "conformal regions"
	// RemedyScoreCalibration adjusts the posterior at one observation at a time by Bayesian
	// score calibration (Bon et al.; calib.ScoreCalibrate with unit weights): an affine map of
	// the chosen estimator's draws fitted on Config.ScoreCalibration.M datasets simulated from
	// parameters near the observation (its posterior inflated about its mean). It runs after
	// the final test, at each observation that the global verdict or the local test does not
	// certify and the simulator can produce, and is judged there by a test of its own on
	// fresh pairs from the same local distribution (Config.ScoreCalibrationTests per
	// observation). What that test shows is local and differs from the global claim; see the
	// package documentation.
	RemedyScoreCalibration Remedy = "score calibration"
)

// DefaultRemedies is the order of remedies when Config.Remedies is nil. Score calibration is
// in it, but its per-observation reserve is planned only where the budget holds it with a
// training share (first training and reserve) at least as large as the final test set (see
// Config.ScoreCalibrationTests); at the default sizes of the test and check sets that needs
// smaller check sets (CheckSimulations) than the default.
func DefaultRemedies() []Remedy {
	return []Remedy{RemedyMoreSimulations, RemedyRegularizer, RemedyConformal, RemedyScoreCalibration}
}

// NoRemedies makes Certify judge the first estimator as it is.
func NoRemedies() []Remedy { return []Remedy{} }

// Config sets a certification. The zero value certifies a default NPE on 10,000 simulations at
// the levels DefaultLevels with tolerance ±0.05 and false-certification rate 0.05.
type Config struct {
	// Target is what is certified (levels, tolerance, false-certification rate, one- or
	// two-sided).
	Target Target

	// Simulations is the whole budget; 0 means 10,000. It is split, before anything runs (see
	// Budget), into the training set, the reserve of RemedyMoreSimulations
	// (MoreSimulations), one check set per diagnosis (CheckSimulations each: one to diagnose
	// the first estimator, one per retraining remedy), the calibration set of RemedyConformal
	// (ConformalSimulations), the reference set of the misspecification check (one check
	// set's size, Budget.Reference: only when there are observations and no check set, as
	// with NoRemedies(); otherwise the first check set serves), the calibration set of the
	// local test (LocalSimulations), the score-calibration sets of each observation
	// (ScoreCalibration.M + ScoreCalibrationTests each) and one final test set
	// (TestSimulations) used once, for the verdict. The training set gets what is left.
	// Sets a run does not need are not simulated. A budget that leaves fewer than 100
	// training simulations (or, for a given estimator, too few for the sets) is an error
	// before anything runs, naming a budget that holds the sets. A plan whose training share
	// (first training and reserve) is smaller than the final test set is kept, as a claim
	// about an estimator trained on few simulations may mean it, and the certificate notes
	// it with a budget whose training share is at least the test set. Memory: a run draws at
	// most Simulations pairs and holds each set it draws as its θ and x, the set's size ×
	// (dim θ + dim x) values; set sizes that add up to more than an int can count are an
	// error before anything runs.
	Simulations int
	// TestSimulations is the size of the final test set; 0 means a fifth of Simulations, at
	// least 500 (or what the budget allows). Its diagnosis holds one value per pair beside
	// the posterior draws of Samples (see there).
	TestSimulations int
	// CheckSimulations is the size of each diagnosis set; 0 means a tenth of Simulations, at
	// least 300 (or what the budget allows). Each set holds CheckSimulations × (dim θ + dim x)
	// values (see Simulations).
	CheckSimulations int
	// ConformalSimulations is the size of the calibration set of RemedyConformal, drawn only
	// when it runs. The coverage of one conformal calibration on n pairs varies about its
	// level by √(L(1−L)/n); the final test of m pairs measures it with a spread of
	// √(L(1−L)/m). 0 means ConformalTestRatio × the final test set, so that the calibration's
	// spread is at most half the test's (and the test's interval, not the calibration, decides
	// the verdict), where the budget affords it, and otherwise the most it affords, at least a
	// check set: the set grows from a check set by taking at most half of the training share
	// (first training and reserve), which stays at least as large as the final test set (a
	// given estimator: from what the budget leaves); the certificate then says how wide the
	// calibration's spread is against the final test's. The set holds its size × (dim θ +
	// dim x) values and one score per pair.
	ConformalSimulations int

	// New makes a fresh, untrained estimator; nil means sbi.NewNPE(prior, sbi.NPEConfig{}).
	New func() sbi.Estimator
	// Trained is an estimator trained elsewhere (any sbi.Amortized, e.g. a posterior made by
	// hand). Certify then trains nothing and skips the more-simulations and regularizer
	// remedies; its training simulations are not part of the budget. Certify draws its own
	// check and test simulations from streams of Seed, so the estimator has not seen them
	// unless it was trained on simulations drawn from those very streams. An estimator trained
	// on parameters drawn from a proposal other than its prior (Sequential's rounds after the
	// first; sbi.NPE.TrainingProposal) is refused unless the prior given is a truncated region
	// (an *sbi.TruncatedPrior, such as the Region of Sequential's result): the claim is then
	// coverage over that region, and the certificate notes it.
	Trained sbi.Amortized
	// Train configures each training; its Seed is replaced by one derived from Seed, the same
	// for the first training and the regularized one, so that they differ by the regularizer.
	Train sbi.TrainConfig
	// MoreSimulations is the reserve of RemedyMoreSimulations: simulations kept apart in the
	// budget and drawn only when that remedy runs, to retrain on the training set plus them.
	// 0 means a third of what the budget leaves for training (the first estimator trains on
	// the other two thirds, the retrained one on all of it); negative means no reserve (the
	// remedy is then skipped, and no check set is reserved for it). Without
	// RemedyMoreSimulations in Remedies nothing is reserved.
	MoreSimulations int

	// Penalty chooses the regularizer of RemedyRegularizer; PenaltyAuto (the zero value) is
	// the balancing penalty for an NRE with the NRE-A or NRE-C loss and the coverage
	// regularizer for any other estimator.
	Penalty Penalty
	// Regularizer is the coverage regularizer's configuration; zero Lambda and Samples mean 5
	// and 16 (the values of Falkiewicz et al. 2023). Mixture is set from the target.
	Regularizer calib.CoverageRegularizerConfig
	// Balance is the balancing penalty's configuration; zero Lambda means 100 (Delaunoy et al.
	// 2022).
	Balance calib.BalanceRegularizerConfig

	// LocalSimulations is the size of the calibration set of the local test (L-C2ST, Linhart
	// et al. 2023) run at each observation, simulated for it alone. 0 means on where it is
	// affordable: when observations are given and the budget holds a set of the size of a
	// check set with a training share (first training and reserve) at least as large as the
	// final test set (a given estimator has no training set to take it from: then whenever
	// the budget holds it); otherwise the certificate says it did not run and why. For an
	// estimator that reads NaN padding (calib.Unpadder: sbi.AmortizedTrials), whose padded
	// simulations the test cannot read, 0 means off, with a note saying so. Negative means off.
	LocalSimulations int
	// LocalTest configures the local test. Its zero value is bounded in cost: the fewest null
	// classifiers with which a p-value can reach the level (19 at α = 0.05), 1,000 evaluation
	// draws, one hidden layer of 16 units and 100 epochs. Alpha and Seed come from
	// Target.Alpha and Seed when zero.
	LocalTest diag.LC2STConfig

	// ScoreCalibration configures RemedyScoreCalibration (calib.ScoreCalibrate); its zero
	// value is the paper's default (M = 100 datasets, inflation 2, N = 1,000 draws, unit
	// weights, diagonal map). ImportanceWeights is refused: the test after it assumes unit
	// weights. Padding left nil is the estimator when it reads NaN padding (calib.Unpadder,
	// as sbi.AmortizedTrials does), so that its padded datasets are kept.
	ScoreCalibration calib.ScoreCalConfig
	// ScoreCalibrationTests is the number of fresh pairs of the local test of each
	// score-calibrated observation; 0 means the size of a check set.
	ScoreCalibrationTests int

	// Remedies are tried in order while the diagnosis fails; nil means DefaultRemedies,
	// NoRemedies() means none.
	Remedies []Remedy

	// Samples is the number of posterior draws per test pair for the HPD ranks; 0 means 1000.
	// The ranks hold Samples × dim θ draws per worker, one test pair at a time
	// (diag.RankConfig), and one rank per pair.
	Samples int
	// SBCSamples is the number of draws per test pair of the SBC and TARP shown beside the
	// verdict; 0 means 199, negative means neither. They hold SBCSamples × dim θ draws per
	// worker, one test pair at a time, and dim θ ranks and one TARP statistic per pair.
	SBCSamples int
	// Misspecification configures the check of each observation; its Seed and Alpha come from
	// Seed and Target.Alpha when zero. The check compares the observation with simulations no
	// estimator here trained on, the first check set or, without one, a set of the budget's
	// (Budget.Reference), since for an estimator with a learned embedding its level holds
	// only on held-out simulations (see diag.Misspecification).
	Misspecification diag.MisspecConfig

	// Seed makes the run reproducible: every simulation set, training and diagnosis draws from a
	// stream derived from it.
	Seed uint64
}

// Step is one diagnosis or remedy of a run, as the certificate shows it.
type Step struct {
	Name        string        // "initial estimator", a Remedy, "final test"
	Simulations int           // simulations it used (drawn for it)
	Decision    *Decision     // the diagnosis after the step; nil when it made none
	Note        string        // what happened, e.g. why a remedy was skipped
	Elapsed     time.Duration // wall time of the step
	Coverage    *diag.CoverageResult
}

// Certify trains an estimator for prior and simulator (or takes Config.Trained), diagnoses its
// coverage on fresh simulations, applies the remedies of Config.Remedies in order while the
// diagnosis does not certify, and judges the chosen posterior once on a final test set that
// nothing else used. Each row of observations (nil for none) is checked against the simulator
// (diag.Misspecification); an observation that the check rejects is refused whatever the
// global verdict. The certificate holds the posterior, the verdict and every number behind it.
//
// It returns an error for bad input, a failed simulation run or training, or an interrupt
// (the host's context; CertifyContext takes one). A simulator that panics on some rows stops
// the run once the other rows of that set are simulated, with an error naming the set and the
// stage; the run does not use that set's finished simulations. A certificate that is not Certified is not an
// error. An error after an estimator was trained is an *IncompleteError, which keeps the best
// estimator trained so far. An interrupted run's error and last progress line say the stage it
// stopped in and what the run keeps; the errors and lines of the trainings under it, and the
// lines of its simulations and diagnostics, say only where they stopped, since the run, not
// they, decides what is kept.
func Certify(prior dist.Distribution, simulator sbi.Simulator, observations *mat.Dense, cfg Config) (*Certificate, error) {
	return CertifyContext(runenv.Context(), prior, simulator, observations, cfg)
}

// MustCertify is Certify for notebook cells: it returns the certificate and panics with
// Certify's error.
func MustCertify(prior dist.Distribution, simulator sbi.Simulator, observations *mat.Dense, cfg Config) *Certificate {
	return safe.Must(Certify(prior, simulator, observations, cfg))
}

// CertifyContext is Certify stopped by ctx instead of the host's context.
func CertifyContext(ctx context.Context, prior dist.Distribution, simulator sbi.Simulator, observations *mat.Dense, cfg Config) (*Certificate, error) {
	// The run's last line says what an interrupt keeps; the calls it makes say only where.
	r, err := newRun(cancel.CallerKeeps(ctx), prior, simulator, observations, cfg)
	if err != nil {
		return nil, err
	}
	cert, err := r.certify()
	if cancel.Stopped(ctx, err) {
		err = r.interrupted(err)
		p := sbi.NewProgress("certify", 0)
		p.Set(0, interruptNote(r.stage, err))
		p.Finish()
	}
	return cert, err
}

// interruptNote is the last progress message of a run that an interrupt stopped with err in
// stage: what the error keeps. A notebook shows it where the error is not: a cell whose
// MustCertify an interrupt stopped ends as interrupted before MustCertify panics.
func interruptNote(stage string, err error) string {
	var inc *IncompleteError
	if !errors.As(err, &inc) {
		return fmt.Sprintf("stopped by interrupt in %s; %s", stage, cancel.NothingKept)
	}
	return fmt.Sprintf("stopped by interrupt in %s; the best estimator trained so far is kept, not certified, in the returned error (certify.IncompleteError: Estimator, Steps), which MustCertify loses", stage)
}

// interrupted is the error of a run that an interrupt stopped with err in r.stage: it says
// where, that no certificate is made, and what the run keeps (the best estimator trained so
// far, in the *IncompleteError, or nothing): not what the call that stopped would keep on its
// own (a retraining's best epoch, a simulation's finished rows), which the run drops. It
// wraps err.
func (r *run) interrupted(err error) error {
	var inc *IncompleteError
	if errors.As(err, &inc) {
		inc.Err = fmt.Errorf("certify: stopped by interrupt in %s, without a certificate: %w", r.stage, inc.Err)
		return err
	}
	kept := cancel.NothingKept
	if r.cfg.Trained != nil {
		kept += " (the estimator given as Config.Trained is as it was)"
	}
	return fmt.Errorf("certify: stopped by interrupt in %s, without a certificate; %s: %w", r.stage, kept, err)
}

// Penalty names the regularizer of RemedyRegularizer.
type Penalty string

// The regularizers of RemedyRegularizer.
const (
	// PenaltyAuto is the balancing penalty for an NRE whose loss is NRE-A or NRE-C (BNRE,
	// balanced NRE-C) and the coverage regularizer for any other estimator (NRE-B included:
	// its logits are free by a constant per observation, so it cannot be balanced).
	PenaltyAuto Penalty = ""
	// PenaltyCoverage is the differentiable coverage regularizer (CalNPE/CalNRE) for every
	// estimator.
	PenaltyCoverage Penalty = "coverage"
	// PenaltyBalance is the balancing penalty for every estimator; an estimator without
	// classifier logits refuses it and the remedy is skipped with the reason.
	PenaltyBalance Penalty = "balance"
)

// ConformalTestRatio is the default size of the conformal calibration set as a multiple of the
// final test set (Config.ConformalSimulations): at 4 the calibration's spread √(L(1−L)/n) is
// half the final test's, so the conformal coverage that the test sees varies by at most
// √(1 + 1/4) ≈ 1.12 times what the test alone would show.
const ConformalTestRatio = 4

// stream numbers of the random streams derived from Config.Seed.
const (
	streamTrainSims = iota + 1
	streamTestSims
	streamTrain
	streamDiag
	streamSBC
	streamTARP
	streamMisspec
	streamMoreSims
	streamLocalSims
	streamLocal
	streamConformalSims
	streamCheckSims = 100     // + index of the check set
	streamScoreCal  = 1 << 20 // + 4·observation + 0 (fit), 1 (test pairs), 2 (test ranks), 3 (map means)
)

type run struct {
	ctx      context.Context
	prior    dist.Distribution
	sim      sbi.Simulator
	obs      *mat.Dense
	cfg      Config
	plan     Budget
	notes    []string        // what the plan left out, and why
	checks   int             // check sets drawn so far
	trainSet *sbi.Simulation // nil with Config.Trained; with the reserve once drawn
	first    *sbi.Simulation // the first check set; nil without remedies
	cert     *Certificate
	kept     *candidate // the best estimator trained here so far, for IncompleteError; nil before
	stage    string     // what the run is doing: the step or remedy, for interruptNote
}

// IncompleteError is the error of Certify when the run stops (a failed simulation set, a
// diagnosis or remedy that fails, an interrupt) after it trained an estimator: the estimator
// is kept here, not certified, so that its training is not lost with the run. Save it, or give
// it as Config.Trained to a new run to certify it. Err is the cause, which errors.Is and
// errors.As see through. A run with Config.Trained returns the cause alone.
type IncompleteError struct {
	// Estimator is the best estimator trained so far (by its check set, where it had one).
	// When the best was the conformal regions of RemedyConformal, it is the estimator they
	// were built on: their thresholds are not kept.
	Estimator sbi.Amortized
	Steps     []Step // the steps finished before the error
	Err       error

	name          string // what Estimator is in the run ("initial estimator", …); "" when not known
	conformalLost bool   // the best was the conformal regions built on Estimator, not kept
}

func (e *IncompleteError) Error() string {
	what := fmt.Sprint(e.Estimator)
	if e.name != "" {
		what = e.name + ": " + what
	}
	s := fmt.Sprintf("%v; the best estimator trained so far (%s) is kept, not certified, in the error (certify.IncompleteError)", e.Err, what)
	if e.conformalLost {
		s += "; the conformal regions built on it, which the run chose, are not kept (their thresholds are lost with the run)"
	}
	return s
}

func (e *IncompleteError) Unwrap() error { return e.Err }

// incomplete is err with the estimator kept so far (an *IncompleteError), or err when none was
// trained here.
func (r *run) incomplete(err error) error {
	if r.kept == nil || r.cfg.Trained != nil {
		return err
	}
	inc := &IncompleteError{Estimator: r.kept.est, Steps: append([]Step(nil), r.cert.Steps...), Err: err, name: r.kept.name}
	if r.kept.conformal != nil {
		inc.name, inc.conformalLost = r.kept.base, true
	}
	return inc
}

func (c Config) withDefaults() Config {
	c.Target = c.Target.withDefaults()
	if c.Simulations == 0 {
		c.Simulations = 10_000
	}
	if c.Remedies == nil {
		c.Remedies = DefaultRemedies()
	}
	if c.Samples == 0 {
		c.Samples = 1000
	}
	if c.SBCSamples == 0 {
		c.SBCSamples = 199
	}
	if c.Regularizer.Lambda == 0 {
		c.Regularizer.Lambda = 5
	}
	if c.Regularizer.Samples == 0 {
		c.Regularizer.Samples = 16
	}
	if c.Target.Conservative {
		c.Regularizer.Mixture = 0
	} else {
		c.Regularizer.Mixture = 1
	}
	if c.Balance.Lambda == 0 {
		c.Balance.Lambda = 100
	}
	if c.Misspecification.Alpha == 0 {
		c.Misspecification.Alpha = c.Target.Alpha
	}
	if c.Misspecification.Seed == 0 {
		c.Misspecification.Seed = seedOf(c.Seed, streamMisspec)
	}
	c.LocalTest = localDefaults(c.LocalTest, c.Target.Alpha, seedOf(c.Seed, streamLocal))
	if c.ScoreCalibration.M == 0 {
		c.ScoreCalibration.M = 100
	}
	if c.ScoreCalibration.N == 0 {
		c.ScoreCalibration.N = 1000
	}
	if c.ScoreCalibration.Inflation == 0 {
		c.ScoreCalibration.Inflation = 2
	}
	return c
}

// Budget is how a run splits its simulations, fixed before anything runs.
type Budget struct {
	Total     int // Config.Simulations
	Train     int // training simulations of the first estimator (0 with Config.Trained)
	More      int // the reserve of RemedyMoreSimulations, drawn only when it runs
	Check     int // size of each check set
	CheckSets int // check sets reserved: one for the first diagnosis, one per retraining remedy
	Conformal int // the calibration set of RemedyConformal, drawn only when it runs; 0 without it
	Test      int // the final test set
	Reference int // simulations drawn only as the misspecification check's reference, when there is no check set (see Config.Misspecification)
	Local     int // the calibration set of the local test (L-C2ST); 0 when it does not run
	// ScoreCal is the reserve of RemedyScoreCalibration per observation (its M datasets and
	// its test pairs), for ScoreCalObservations observations; drawn only where it runs.
	ScoreCal             int
	ScoreCalObservations int
	Used                 int // simulations drawn by the end of the run
	Dropped              int // simulations that failed (NaN or ±Inf) and were left out
}

func hasRemedy(rs []Remedy, r Remedy) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// plan splits the budget. nObs is the number of observations; defaults says whether the
// remedies are the default ones (whose score-calibration reserve is dropped, with a note,
// where the budget does not afford it). It returns the notes of what it left out or warns of,
// and for a budget too small for the settings an error naming a budget that holds them.
func plan(cfg Config, trained bool, nObs int, defaults bool) (Budget, []string, error) {
	b, notes, err := split(cfg, trained, nObs, defaults)
	if errors.Is(err, errBudgetShort) {
		return b, nil, budgetShortError(cfg, trained, nObs, defaults)
	}
	if err != nil {
		return b, nil, err
	}
	if !trained && b.Train+b.More < b.Test {
		notes = append(notes, shortTrainingNote(cfg, b, nObs, defaults))
	}
	return b, notes, nil
}

// errBudgetShort is split's error for a budget too small for the sets it must hold.
var errBudgetShort = errors.New("certify: the budget is too small")

// maxSuggestedBudget is the largest budget budgetShortError looks at.
const maxSuggestedBudget = math.MaxInt32

// smallestBudget searches, from cfg.Simulations up to maxSuggestedBudget (by doubling, then
// bisection), for a budget larger than cfg.Simulations that split fits and ok accepts, and
// returns it with its sets; false when none up to maxSuggestedBudget does.
func smallestBudget(cfg Config, trained bool, nObs int, defaults bool, ok func(Budget) bool) (int, Budget, bool) {
	at := func(n int) (Budget, bool) {
		c := cfg
		c.Simulations = n
		b, _, err := split(c, trained, nObs, defaults)
		return b, err == nil && ok(b)
	}
	// double is 2n up to maxSuggestedBudget, without the wrap of 2n where an int has 32 bits
	// (which made hi negative, then 0, and the search endless).
	double := func(n int) int {
		if n > maxSuggestedBudget/2 {
			return maxSuggestedBudget
		}
		return 2 * n
	}
	lo, hi := cfg.Simulations, min(max(double(cfg.Simulations), 128), maxSuggestedBudget)
	for {
		if _, fits := at(hi); fits && hi > lo {
			break
		}
		if hi == maxSuggestedBudget {
			return 0, Budget{}, false
		}
		lo, hi = hi, double(hi)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, fits := at(mid); fits {
			hi = mid
		} else {
			lo = mid
		}
	}
	b, _ := at(hi)
	return hi, b, true
}

// budgetShortError is the error for a budget of cfg.Simulations too small for the settings:
// it names a budget that holds them with the sets at that budget, or says that none up to
// maxSuggestedBudget does (the default sizes of the sets grow with the budget).
func budgetShortError(cfg Config, trained bool, nObs int, defaults bool) error {
	n, b, found := smallestBudget(cfg, trained, nObs, defaults, func(Budget) bool { return true })
	if !found {
		return fmt.Errorf("certify: a budget of %d simulations is too small for these settings, and no budget up to %d holds them: the sets left at their default sizes grow with Simulations; set TestSimulations, CheckSimulations and ScoreCalibrationTests, or give fewer observations",
			cfg.Simulations, maxSuggestedBudget)
	}
	return fmt.Errorf("certify: a budget of %d simulations is too small for these settings; %d simulations would hold them (%s); raise Simulations or lower TestSimulations/CheckSimulations/ConformalSimulations",
		cfg.Simulations, n, b.sets(trained))
}

// shortTrainingNote is the note of a plan b whose training share (first training and reserve)
// is smaller than its final test set: the plan holds (a claim about an estimator trained on
// few simulations may mean it), and the note names a budget whose share is at least the test
// set.
func shortTrainingNote(cfg Config, b Budget, nObs int, defaults bool) string {
	what := fmt.Sprintf("training set of %d simulations", b.Train)
	if b.More > 0 {
		what = fmt.Sprintf("training share of %d simulations (first training %d, reserve %d)", b.Train+b.More, b.Train, b.More)
	}
	n, at, found := smallestBudget(cfg, false, nObs, defaults, func(b Budget) bool { return b.Train+b.More >= b.Test })
	if !found {
		return fmt.Sprintf("%s is smaller than the final test set of %d, and no budget up to %d makes it as large: the sets left at their default sizes grow with Simulations; set TestSimulations and CheckSimulations if the estimator should train on more simulations than test it",
			what, b.Test, maxSuggestedBudget)
	}
	return fmt.Sprintf("%s is smaller than the final test set of %d; %d simulations would give it at least the test set's size (%s); raise Simulations or lower TestSimulations/CheckSimulations/ConformalSimulations if the estimator should train on more simulations than test it",
		what, b.Test, n, at.sets(false))
}

// sets lists the sets of a budget that fits, for budgetShortError.
func (b Budget) sets(trained bool) string {
	parts := []string{fmt.Sprintf("a test set of %d", b.Test)}
	add := func(n int, format string, args ...any) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf(format, args...))
		}
	}
	add(b.CheckSets, "%s of %d", count(b.CheckSets, "check set"), b.Check)
	add(b.Conformal, "a conformal calibration set of %d", b.Conformal)
	add(b.Reference, "%d reference simulations", b.Reference)
	add(b.Local, "a local-test set of %d", b.Local)
	add(b.ScoreCalObservations, "%s of %d", count(b.ScoreCalObservations, "score-calibration set"), b.ScoreCal)
	add(b.More, "a reserve of %d for more simulations", b.More)
	if !trained {
		parts = append(parts, fmt.Sprintf("%d training simulations", b.Train))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// count is "a thing" for n = 1, else "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "a " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// split is plan without the search for a budget that fits: a budget too small for its sets
// is errBudgetShort.
func split(cfg Config, trained bool, nObs int, defaults bool) (Budget, []string, error) {
	b := Budget{Total: cfg.Simulations}
	if b.Total < 0 || cfg.TestSimulations < 0 || cfg.CheckSimulations < 0 || cfg.ConformalSimulations < 0 || cfg.ScoreCalibrationTests < 0 {
		return b, nil, fmt.Errorf("certify: simulation counts must be ≥ 0, got Simulations %d, TestSimulations %d, CheckSimulations %d, ConformalSimulations %d, ScoreCalibrationTests %d",
			cfg.Simulations, cfg.TestSimulations, cfg.CheckSimulations, cfg.ConformalSimulations, cfg.ScoreCalibrationTests)
	}
	b.Test = cfg.TestSimulations
	if b.Test == 0 {
		b.Test = max(b.Total/5, min(500, b.Total/2))
	}
	b.Check = cfg.CheckSimulations
	if b.Check == 0 {
		b.Check = max(b.Total/10, min(300, b.Total/6))
	}
	if len(cfg.Remedies) > 0 {
		b.CheckSets = 1
		for _, r := range cfg.Remedies {
			switch r {
			case RemedyConformal:
				// its own calibration set: at least a check set here, grown below
				b.Conformal = cfg.ConformalSimulations
				if b.Conformal == 0 {
					b.Conformal = b.Check
				}
			case RemedyMoreSimulations:
				// no reserve (MoreSimulations < 0): the remedy is skipped and needs no check set
				if !trained && cfg.MoreSimulations >= 0 {
					b.CheckSets++
				}
			case RemedyRegularizer:
				if !trained {
					b.CheckSets++
				}
			}
		}
	}
	if nObs > 0 && b.CheckSets == 0 {
		// No check set to compare the observations with (the training set would not do for a
		// learned embedding: see Config.Misspecification): reserve one.
		b.Reference = b.Check
	}
	if err := checkSetsCount(cfg, b, nObs); err != nil {
		return b, nil, err
	}
	fixed := b.Test + b.CheckSets*b.Check + b.Reference + b.Conformal
	// affordable: what is left for training after extra is at least the test set
	// (anything that fits, for a given estimator).
	affordable := func(extra int) bool {
		rest := b.Total - fixed - extra
		if trained {
			return rest >= 0
		}
		return rest >= max(b.Test, 100)
	}
	short := func(extra int) string {
		if trained {
			return fmt.Sprintf("do not fit in the budget of %d beside the test and check sets", b.Total)
		}
		return fmt.Sprintf("would leave %d for training, less than the final test set of %d, in a budget of %d", b.Total-fixed-extra, b.Test, b.Total)
	}
	var notes []string
	if nObs > 0 && cfg.LocalSimulations >= 0 {
		b.Local = cfg.LocalSimulations
		_, padded := cfg.Trained.(calib.Unpadder)
		switch {
		case b.Local == 0 && padded:
			// L-C2ST refuses padded simulations: a set drawn for it would be thrown away.
			notes = append(notes, "local test (L-C2ST) not run: the estimator reads observations padded with NaN (i.i.d. trials), and the local test's classifier reads every value of x, so no simulation is drawn for it")
		case b.Local == 0:
			b.Local = b.Check
			if !affordable(b.Local) {
				notes = append(notes, fmt.Sprintf("local test (L-C2ST) not run: a calibration set of %d simulations %s; set LocalSimulations or raise Simulations",
					b.Local, short(b.Local)))
				b.Local = 0
			}
		}
	}
	if nObs > 0 && hasRemedy(cfg.Remedies, RemedyScoreCalibration) {
		per := cfg.ScoreCalibration.M + cfg.ScoreCalibrationTests
		if cfg.ScoreCalibrationTests == 0 {
			per += b.Check
		}
		if !defaults || affordable(b.Local+nObs*per) {
			b.ScoreCal, b.ScoreCalObservations = per, nObs
		} else {
			notes = append(notes, fmt.Sprintf("score calibration not planned: %d observations × %d simulations %s; list RemedyScoreCalibration in Remedies or raise Simulations",
				nObs, per, short(b.Local+nObs*per)))
		}
	}
	if b.Conformal > 0 && cfg.ConformalSimulations == 0 {
		want := max(b.Check, ConformalTestRatio*b.Test)
		share := b.Total - fixed - b.Local - b.ScoreCal*b.ScoreCalObservations // training share before growing
		room := share
		if !trained {
			// the training share keeps at least half of itself and at least the final test set
			room = min(share-max(b.Test, 100), share/2)
		}
		grow := min(want-b.Conformal, max(room, 0))
		b.Conformal += grow
		fixed += grow
		if b.Conformal < want {
			notes = append(notes, fmt.Sprintf("conformal calibration set of %d, the most the budget of %d affords beside the training share (at most half of it), not %d× the final test set (%d): one calibration's coverage varies by about ±%.3f at level 0.5, against the final test's ±%.3f; set ConformalSimulations or raise Simulations",
				b.Conformal, b.Total, ConformalTestRatio, want, math.Sqrt(0.25/float64(b.Conformal)), math.Sqrt(0.25/float64(b.Test))))
		}
	}
	rest := b.Total - fixed - b.Local - b.ScoreCal*b.ScoreCalObservations
	if !trained {
		if hasRemedy(cfg.Remedies, RemedyMoreSimulations) && cfg.MoreSimulations >= 0 {
			b.More = cfg.MoreSimulations
			if b.More == 0 {
				b.More = rest / 3
			}
		}
		b.Train = rest - b.More
	}
	if b.Train < 0 || (!trained && b.Train < 100) || rest < 0 {
		return b, nil, errBudgetShort
	}
	return b, notes, nil
}

// checkSetsCount refuses set sizes that add up to more simulations than sat counts, the
// most any set can take (the test set, the check sets, the reference, conformal, local and
// reserve sets, and each observation's score-calibration sets), so that no sum of the plan
// wraps round to a size that seems to fit the budget.
func checkSetsCount(cfg Config, b Budget, nObs int) error {
	sum := sat.Add(sat.Add(b.Test, sat.Mul(b.CheckSets, b.Check)), sat.Add(b.Reference, b.Conformal))
	sum = sat.Add(sum, sat.Add(max(cfg.LocalSimulations, b.Check), max(cfg.MoreSimulations, 0)))
	if sum >= sat.Max {
		return fmt.Errorf("certify: TestSimulations %d, %d check sets of CheckSimulations %d, ConformalSimulations %d, LocalSimulations %d and MoreSimulations %d add up to more simulations than an int can count: give each set fewer simulations",
			b.Test, b.CheckSets, b.Check, b.Conformal, cfg.LocalSimulations, cfg.MoreSimulations)
	}
	if nObs > 0 && hasRemedy(cfg.Remedies, RemedyScoreCalibration) {
		per := sat.Add(sat.Add(cfg.ScoreCalibration.M, cfg.ScoreCalibrationTests), b.Check)
		if sat.Add(sum, sat.Mul(nObs, per)) >= sat.Max {
			return fmt.Errorf("certify: score calibration of %d observations × %d simulations (ScoreCalibration.M %d, ScoreCalibrationTests %d) is more simulations than an int can count: give fewer observations or smaller sets",
				nObs, per, cfg.ScoreCalibration.M, cfg.ScoreCalibrationTests)
		}
	}
	return nil
}

// localDefaults bounds the cost of the local test (see Config.LocalTest).
func localDefaults(c diag.LC2STConfig, alpha float64, seed uint64) diag.LC2STConfig {
	if c.Alpha == 0 {
		c.Alpha = alpha
	}
	if c.Seed == 0 {
		c.Seed = seed
	}
	if c.Null == 0 {
		c.Null = int(math.Ceil(1/c.Alpha-1e-9)) - 1
	}
	if c.Evals == 0 {
		c.Evals = 1000
	}
	if c.Hidden == nil {
		c.Hidden = []int{16}
	}
	if c.MaxEpochs == 0 {
		c.MaxEpochs = 100
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.01
	}
	return c
}

func newRun(ctx context.Context, prior dist.Distribution, sim sbi.Simulator, obs *mat.Dense, cfg Config) (*run, error) {
	if prior == nil || sim == nil {
		return nil, errors.New("certify: a prior and a simulator are required")
	}
	defaults := cfg.Remedies == nil
	cfg = cfg.withDefaults()
	if err := cfg.Target.check(); err != nil {
		return nil, err
	}
	for _, r := range cfg.Remedies {
		switch r {
		case RemedyMoreSimulations, RemedyRegularizer, RemedyConformal, RemedyScoreCalibration:
		default:
			return nil, fmt.Errorf("certify: unknown remedy %q; use RemedyMoreSimulations, RemedyRegularizer, RemedyConformal or RemedyScoreCalibration", r)
		}
	}
	switch cfg.Penalty {
	case PenaltyAuto, PenaltyCoverage, PenaltyBalance:
	default:
		return nil, fmt.Errorf("certify: unknown penalty %q; use PenaltyAuto, PenaltyCoverage or PenaltyBalance", cfg.Penalty)
	}
	if cfg.ScoreCalibration.ImportanceWeights {
		return nil, errors.New("certify: score calibration with importance weights is not supported: the local test after it draws its pairs from the importance distribution, which holds for unit weights only; leave ImportanceWeights false")
	}
	if cfg.Samples < 1 {
		return nil, fmt.Errorf("certify: Samples must be ≥ 1 (0 means 1000), got %d", cfg.Samples)
	}
	nObs := 0
	if obs != nil {
		var c int
		nObs, c = obs.Dims()
		if c != sim.DataDim() {
			return nil, fmt.Errorf("certify: observations have %d columns but the simulator produces %d values; give one observation per row", c, sim.DataDim())
		}
	}
	if t, ok := cfg.Trained.(interface{ Trained() bool }); ok && !t.Trained() {
		return nil, fmt.Errorf("certify: Config.Trained is an untrained estimator; train it first or give Config.New instead: %w", sbi.ErrUntrained)
	}
	region, err := checkProposal(prior, cfg.Trained)
	if err != nil {
		return nil, err
	}
	b, notes, err := plan(cfg, cfg.Trained != nil, nObs, defaults)
	if err != nil {
		return nil, err
	}
	if region {
		notes = append(notes, regionNoteOf(prior.(*sbi.TruncatedPrior)))
	}
	if cfg.Trained == nil && cfg.New == nil {
		cfg.New = func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{}) }
	}
	return &run{ctx: ctx, prior: prior, sim: sim, obs: obs, cfg: cfg, plan: b, notes: notes}, nil
}

// regionNote begins the certificate's note when the prior is a truncated region.
const regionNote = "the prior given is a truncated region (sbi.TruncatedPrior): every simulation here drew its parameters from that region, so the claim is coverage over the region's predictive, not over the whole prior's"

// regionNoteOf is the note of the region t: regionNote, then which region it is, so that a
// certificate saved and loaded without the region still says what its claim is about.
func regionNoteOf(t *sbi.TruncatedPrior) string {
	return fmt.Sprintf("%s; the region is {θ : log q(θ | xo) ≥ %.6g}, of mass 1 − %g of the posterior q at the observation xo that Sequential trained for", regionNote, t.Threshold, t.Epsilon)
}

// checkProposal refuses an estimator trained on a proposal other than its prior (see
// sbi.NPE.TrainingProposal) unless the prior given is a truncated region, and reports whether
// it is one.
func checkProposal(prior dist.Distribution, trained sbi.Amortized) (region bool, err error) {
	_, region = prior.(*sbi.TruncatedPrior)
	p := sbi.TrainingProposalOf(trained)
	if p == "" || region {
		return region, nil
	}
	return false, fmt.Errorf("certify: Config.Trained was trained on parameters drawn from a proposal, not from the prior (%s): its posterior is fitted near that observation, and a claim of coverage over the whole prior's predictive would be about pairs it was never trained on. "+
		"Certify it over the region it was trained for: give the result's Region as the prior (certify.Certify(res.Region, sim, obs, cfg), for Sequential with sbi.TruncatedProposals, whose Region is not nil); "+
		"for an amortized certificate over the whole prior, train on the prior instead (Config.New, or Sequential with Rounds: 1)", p)
}

func seedOf(seed uint64, stream uint64) uint64 {
	// SplitMix64 of seed and stream: distinct, well-mixed seeds for the sub-streams.
	z := seed + stream*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// simulate draws n parameters from the prior and simulates them on stream, as the set named
// set.
func (r *run) simulate(n int, stream uint64, set string) (*sbi.Simulation, error) {
	rng := rand.New(rand.NewPCG(r.cfg.Seed, stream))
	theta := r.prior.Sample(rng, n)
	s, err := r.simulateAt(rng, theta)
	if err != nil {
		return nil, r.simulationFailed(set, n, err)
	}
	r.plan.Used += n
	r.plan.Dropped += s.Dropped
	if s.Theta == nil || s.Theta.RawMatrix().Rows == 0 {
		return nil, fmt.Errorf("certify: all %d simulations failed (NaN or ±Inf)", n)
	}
	return s, nil
}

// simulationFailed is the error of the simulation of set (n pairs) that stopped with err. Unless
// an interrupt stopped it (the run's error then says the stage and what is kept), it names the
// stage of the run; when rows panicked it says that the run does not use the simulations that
// finished: a new run with the same Seed draws the same parameters and simulates them again.
func (r *run) simulationFailed(set string, n int, err error) error {
	if r.ctx.Err() != nil {
		return fmt.Errorf("certify: simulating %s (%d pairs): %w", set, n, err)
	}
	var part *sbi.PartialSimulationError
	if errors.As(err, &part) && len(part.Panicked) > 0 {
		return fmt.Errorf("certify: simulating %s (%d pairs) in %s: %w; the run stops without a certificate and does not use the simulations that finished (a new run with the same Seed draws the same parameters and simulates them all again): mend the simulator, or have it return NaN for a row it cannot simulate (the run drops and counts such rows), and run again",
			set, n, r.stage, err)
	}
	return fmt.Errorf("certify: simulating %s (%d pairs) in %s: %w", set, n, r.stage, err)
}

// simulateAt simulates the rows of theta with rng and drops those that failed. For a given
// estimator that reads NaN padding (calib.Unpadder: sbi.AmortizedTrials) a padded row is an
// observation of fewer trials, kept, as the diagnoses and calibrations of the run keep it; a
// row the estimator cannot read (NaN in some values of a trial, a trial after the padding) is
// an error naming it and saying that a failed simulation is a whole row of NaN, since the
// simulator's rows are then not laid out as the estimator reads them: dropping such rows
// would hide a simulator that writes its trials where the estimator does not look.
func (r *run) simulateAt(rng *rand.Rand, theta *mat.Dense) (*sbi.Simulation, error) {
	u, ok := r.cfg.Trained.(calib.Unpadder)
	if !ok {
		return sbi.SimulateBatchContext(r.ctx, rng, r.sim, theta)
	}
	x, err := sbi.SimulateBatchAlignedContext(r.ctx, rng, r.sim, theta)
	if err != nil {
		return nil, err
	}
	th, xx, dropped, err := pairs.Finite(u, theta, x, "simulation")
	if err != nil {
		return nil, fmt.Errorf("the estimator cannot read the simulator's output: %w; a failed simulation must be a whole row of NaN (a SimFunc that returns nil writes one), which is dropped and counted", err)
	}
	if th == nil {
		n, _ := theta.Dims()
		return nil, fmt.Errorf("simulate: %w: all %d simulations gave no value or ±Inf before their padding", sbi.ErrNonFinite, n)
	}
	return &sbi.Simulation{Theta: th, X: xx, Dropped: dropped}, nil
}

func (r *run) nextCheckSet() (*sbi.Simulation, error) {
	if r.checks >= r.plan.CheckSets {
		return nil, nil
	}
	r.checks++
	return r.simulate(r.plan.Check, streamCheckSims+uint64(r.checks), "a check set")
}

func (r *run) diagnose(est sbi.Amortized, s *sbi.Simulation, stream uint64) (*diag.CoverageResult, *Decision, error) {
	cov, err := diag.RankCoverageContext(r.ctx, est, s.Theta, s.X, diag.RankConfig{
		Levels: r.cfg.Target.Levels, Samples: r.cfg.Samples, Seed: seedOf(r.cfg.Seed, stream)})
	if err != nil {
		return nil, nil, fmt.Errorf("certify: coverage: %w", err)
	}
	d, err := Decide(cov, r.cfg.Target)
	if err != nil {
		return nil, nil, err
	}
	return cov, d, nil
}

// candidate is a posterior the run may choose: an estimator and, after the conformal remedy,
// its per-level thresholds.
type candidate struct {
	name      string
	base      string // conformal regions: the name of the estimator they were built on
	est       sbi.Amortized
	conformal []*calib.Conformal
	calTheta  *mat.Dense // the conformal calibration pairs
	calX      *mat.Dense
	decision  *Decision // on its check set; nil for conformal (guaranteed by construction)
}

// worst is the largest |coverage − level| of a candidate's diagnosis (0 for none).
func (c *candidate) worst() float64 {
	if c.decision == nil {
		return 0
	}
	w := 0.0
	for _, l := range c.decision.Checks {
		w = max(w, math.Abs(l.Coverage-l.Level))
	}
	return w
}

func (r *run) certify() (*Certificate, error) {
	start := time.Now()
	r.cert = &Certificate{Target: r.cfg.Target, Seed: r.cfg.Seed, Remedies: append([]Remedy(nil), r.cfg.Remedies...),
		Notes: append([]string(nil), r.notes...)}
	r.stage = "the initial estimator"
	best, err := r.initial()
	if err != nil {
		return nil, r.incomplete(err)
	}
	r.kept = best
	for _, rem := range r.cfg.Remedies {
		if rem == RemedyScoreCalibration {
			continue // per observation, after the final test
		}
		if best.decision != nil && best.decision.Verdict == Certified {
			break
		}
		var next *candidate
		r.stage = fmt.Sprintf("the remedy %q", rem)
		switch rem {
		case RemedyMoreSimulations:
			next, err = r.moreSimulations()
		case RemedyRegularizer:
			next, err = r.regularize()
		case RemedyConformal:
			next, err = r.conformalize(best)
		}
		if err != nil {
			return nil, r.incomplete(err)
		}
		r.cert.Tried++
		if next != nil && (next.decision == nil || best.decision == nil || next.worst() < best.worst()) {
			best = next
			r.kept = best
		}
	}
	r.stage = "the final test"
	if err := r.final(best); err != nil {
		return nil, r.incomplete(err)
	}
	r.stage = "the checks of the observations"
	if err := r.observations(); err != nil {
		return nil, r.incomplete(err)
	}
	r.cert.Budget = r.plan
	r.cert.Elapsed = time.Since(start)
	r.cert.Versions = versions()
	return r.cert, nil
}

func (r *run) initial() (*candidate, error) {
	t0 := time.Now()
	step := Step{Name: "initial estimator"}
	c := &candidate{name: "initial estimator", est: r.cfg.Trained}
	if c.est == nil {
		s, err := r.simulate(r.plan.Train, streamTrainSims, "the training set")
		if err != nil {
			return nil, err
		}
		r.trainSet = s
		est, err := r.train(r.cfg.New(), s, nil)
		if err != nil {
			if est.Trained() {
				// an interrupt keeps the best epoch
				r.kept = &candidate{name: c.name + ", as far as its training went", est: est}
			}
			return nil, fmt.Errorf("certify: training the initial estimator: %w", err)
		}
		c.est = est
		r.kept = c
		step.Simulations = r.plan.Train
		step.Note = fmt.Sprintf("trained %s on %d simulations", est, s.Theta.RawMatrix().Rows)
	} else {
		step.Note = "estimator given (Config.Trained); not trained here"
	}
	if len(r.cfg.Remedies) > 0 {
		s, err := r.nextCheckSet()
		if err != nil {
			return nil, err
		}
		if s != nil {
			r.first = s
			cov, d, err := r.diagnose(c.est, s, streamDiag)
			if err != nil {
				return nil, err
			}
			c.decision, step.Decision, step.Coverage = d, d, cov
			step.Simulations += r.plan.Check
			r.cert.Before = cov
		}
	}
	step.Elapsed = time.Since(t0)
	r.cert.Steps = append(r.cert.Steps, step)
	return c, nil
}

// train trains est, fresh from Config.New, on s, with the seed of the first training
// and the regularizer reg (nil for none).
func (r *run) train(est sbi.Estimator, s *sbi.Simulation, reg sbi.Regularizer) (sbi.Estimator, error) {
	tc := r.cfg.Train
	tc.Seed = seedOf(r.cfg.Seed, streamTrain)
	tc.Regularizer = reg
	if _, err := est.TrainContext(r.ctx, s.Theta, s.X, tc); err != nil {
		return est, err
	}
	return est, nil
}

// diagnoseStep diagnoses est on the next check set into step; it returns nil when no check
// set is left (and says so in step).
func (r *run) diagnoseStep(step *Step, name string, est sbi.Amortized, stream uint64) (*candidate, error) {
	s, err := r.nextCheckSet()
	if err != nil {
		return nil, err
	}
	if s == nil {
		step.Note = "skipped: no check set left in the budget to diagnose the retrained estimator"
		return nil, nil
	}
	cov, d, err := r.diagnose(est, s, stream)
	if err != nil {
		return nil, err
	}
	step.Decision, step.Coverage, step.Simulations = d, cov, step.Simulations+r.plan.Check
	return &candidate{name: name, est: est, decision: d}, nil
}

func (r *run) moreSimulations() (*candidate, error) {
	t0 := time.Now()
	step := Step{Name: string(RemedyMoreSimulations)}
	defer func() { step.Elapsed = time.Since(t0); r.cert.Steps = append(r.cert.Steps, step) }()
	switch {
	case r.cfg.New == nil || r.trainSet == nil:
		step.Note = "skipped: the estimator was given trained (Config.Trained), so there is nothing to retrain"
		return nil, nil
	case r.plan.More == 0:
		step.Note = "skipped: no reserve of simulations in the budget (Config.MoreSimulations)"
		return nil, nil
	}
	extra, err := r.simulate(r.plan.More, streamMoreSims, "the reserve of more simulations")
	if err != nil {
		return nil, err
	}
	step.Simulations = r.plan.More
	first := r.trainSet.Theta.RawMatrix().Rows
	r.trainSet = joinSimulations(r.trainSet, extra)
	est, err := r.train(r.cfg.New(), r.trainSet, nil)
	if err != nil {
		return nil, fmt.Errorf("certify: retraining on more simulations: %w", err)
	}
	n := r.trainSet.Theta.RawMatrix().Rows
	c, err := r.diagnoseStep(&step, fmt.Sprintf("estimator on %d simulations", n), est, streamDiag+2)
	if c != nil {
		step.Note = fmt.Sprintf("retrained a fresh %s on %d simulations: the %d of the first training and %d of the reserve", est, n, first, n-first)
	}
	return c, err
}

// joinSimulations stacks the pairs of a and b.
func joinSimulations(a, b *sbi.Simulation) *sbi.Simulation {
	stack := func(p, q *mat.Dense) *mat.Dense {
		rp, c := p.Dims()
		rq, _ := q.Dims()
		m := mat.NewDense(rp+rq, c, nil)
		m.Slice(0, rp, 0, c).(*mat.Dense).Copy(p)
		m.Slice(rp, rp+rq, 0, c).(*mat.Dense).Copy(q)
		return m
	}
	return &sbi.Simulation{Theta: stack(a.Theta, b.Theta), X: stack(a.X, b.X), Dropped: a.Dropped + b.Dropped}
}

// penaltyFor is the regularizer of RemedyRegularizer for est and what to call it.
func (r *run) penaltyFor(est sbi.Estimator) (sbi.Regularizer, string) {
	p := r.cfg.Penalty
	if p == PenaltyAuto {
		p = PenaltyCoverage
		if nre, ok := est.(*sbi.NRE); ok && nre.Config().Loss != sbi.NREB {
			p = PenaltyBalance
		}
	}
	if p == PenaltyBalance {
		return calib.NewBalanceRegularizerWith(r.cfg.Balance), fmt.Sprintf("the balancing penalty (λ = %g)", r.cfg.Balance.Lambda)
	}
	return calib.NewCoverageRegularizer(r.cfg.Regularizer), fmt.Sprintf("the coverage regularizer (λ = %g, %d draws per pair, mixture %g)",
		r.cfg.Regularizer.Lambda, r.cfg.Regularizer.Samples, r.cfg.Regularizer.Mixture)
}

func (r *run) regularize() (*candidate, error) {
	t0 := time.Now()
	step := Step{Name: string(RemedyRegularizer)}
	defer func() { step.Elapsed = time.Since(t0); r.cert.Steps = append(r.cert.Steps, step) }()
	if r.cfg.New == nil || r.trainSet == nil {
		step.Note = "skipped: the estimator was given trained (Config.Trained), so there is nothing to retrain"
		return nil, nil
	}
	est := r.cfg.New()
	reg, what := r.penaltyFor(est)
	est, err := r.train(est, r.trainSet, reg)
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, fmt.Errorf("certify: training with %s: %w", what, err)
		}
		step.Note = fmt.Sprintf("skipped: %s cannot be trained with %s: %v", est, what, err)
		return nil, nil
	}
	c, err := r.diagnoseStep(&step, "regularized estimator", est, streamDiag+1)
	if c != nil {
		step.Note = fmt.Sprintf("retrained on the same %d training simulations with %s", r.trainSet.Theta.RawMatrix().Rows, what)
	}
	return c, err
}

func (r *run) conformalize(best *candidate) (*candidate, error) {
	t0 := time.Now()
	step := Step{Name: string(RemedyConformal)}
	defer func() { step.Elapsed = time.Since(t0); r.cert.Steps = append(r.cert.Steps, step) }()
	if r.plan.Conformal == 0 {
		step.Note = "skipped: no conformal calibration set in the budget"
		return nil, nil
	}
	s, err := r.simulate(r.plan.Conformal, streamConformalSims, "the conformal calibration set")
	if err != nil {
		return nil, err
	}
	levels := r.cfg.Target.Levels
	confs, err := conformalAt(best.est, s.Theta, s.X, levels)
	if err != nil {
		return nil, err
	}
	base := confs[0]
	for i, l := range levels {
		if math.IsInf(confs[i].Threshold, 1) {
			step.Note = fmt.Sprintf("skipped: %d calibration pairs are too few for a finite region at level %.3g", base.N, l)
			return nil, nil
		}
	}
	step.Simulations = r.plan.Conformal
	step.Note = fmt.Sprintf("regions of the %s calibrated on %d fresh pairs: over calibration sets their coverage is at least L and at most L + %.4f on average; a given calibration's coverage varies by about ±%.3f (at level 0.5), against ±%.3f of the final test of %d pairs",
		best.name, base.N, 1/float64(base.N+1), math.Sqrt(0.25/float64(base.N)), math.Sqrt(0.25/float64(r.plan.Test)), r.plan.Test)
	return &candidate{name: best.name + " + conformal regions", base: best.name, est: best.est, conformal: confs, calTheta: s.Theta, calX: s.X}, nil
}

func (r *run) final(c *candidate) error {
	t0 := time.Now()
	s, err := r.simulate(r.plan.Test, streamTestSims, "the final test set")
	if err != nil {
		return err
	}
	var cov *diag.CoverageResult
	if c.conformal == nil {
		cov, _, err = r.diagnose(c.est, s, streamDiag+100)
		if err != nil {
			return err
		}
	} else {
		scores := calib.ConformalScores(c.est, s.Theta, s.X)
		th := make([]float64, len(c.conformal))
		for i, cf := range c.conformal {
			th[i] = cf.Threshold
		}
		cov, err = diag.RegionCoverage(scores, th, r.cfg.Target.Levels)
		if err != nil {
			return fmt.Errorf("certify: coverage of the conformal regions: %w", err)
		}
	}
	cov.Label = c.name
	d, err := Decide(cov, r.cfg.Target)
	if err != nil {
		return err
	}
	r.cert.Chosen = c.name
	r.cert.Estimator = c.est
	r.cert.Conformal, r.cert.calTheta, r.cert.calX = c.conformal, c.calTheta, c.calX
	r.cert.Final, r.cert.After = d, cov
	if note := coverageByTrials(c.est, s.X, cov); note != "" {
		r.cert.Notes = append(r.cert.Notes, note)
	}
	if r.cfg.SBCSamples > 0 {
		sbc, err := diag.SBCContext(r.ctx, c.est, s.Theta, s.X, diag.RankConfig{Samples: r.cfg.SBCSamples, Seed: seedOf(r.cfg.Seed, streamSBC)})
		if err != nil {
			return fmt.Errorf("certify: SBC: %w", err)
		}
		r.cert.SBC = sbc
		tarp, err := diag.TARPContext(r.ctx, c.est, s.Theta, s.X, diag.RankConfig{Samples: r.cfg.SBCSamples, Seed: seedOf(r.cfg.Seed, streamTARP)})
		if err != nil {
			return fmt.Errorf("certify: TARP: %w", err)
		}
		r.cert.TARP = tarp
	}
	r.cert.Steps = append(r.cert.Steps, Step{Name: "final test", Simulations: r.plan.Test, Decision: d, Coverage: cov,
		Elapsed: time.Since(t0), Note: fmt.Sprintf("the %s judged once on %d fresh pairs", c.name, s.Theta.RawMatrix().Rows)})
	return nil
}

func versions() string {
	v := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/gosbi/gosbi" {
				return "gosbi " + d.Version + ", " + v
			}
		}
		if bi.Main.Path == "github.com/gosbi/gosbi" {
			return "gosbi " + bi.Main.Version + ", " + v
		}
	}
	return v
}
