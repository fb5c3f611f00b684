package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// SequentialMethod names how the rounds of Sequential after the first choose their
// parameters.
type SequentialMethod string

const (
	// TruncatedProposals draws each round's parameters from the prior truncated to the
	// highest-density region of the current posterior at level 1 − ε (TSNPE, Deistler et al.
	// 2022). The estimator keeps its plain loss on the pairs of all rounds: inside the region
	// the proposal is the prior times a constant, so the estimate stays a posterior there,
	// amortized over the observations whose posteriors the region holds. It is the default
	// for the posterior estimators (NPE, NPEEnsemble, FMPE), and applies to every estimator.
	TruncatedProposals SequentialMethod = "truncated"
	// PosteriorProposals draws each round's parameters from the current posterior at the
	// observation (SNRE and SNLE, as Python's sbi does for ratio and likelihood estimators). A
	// ratio estimator trained on any proposal still gives prior × ratio ∝ the posterior, and a
	// likelihood estimator learns p(x | θ) whatever the proposal, so no correction is needed;
	// a posterior estimator would learn the proposal's posterior instead, so NPE,
	// NPEEnsemble and FMPE refuse it. It is the default for NRE, NLE, MNLE and NREEnsemble.
	PosteriorProposals SequentialMethod = "posterior"
	// AtomicProposals draws each round's parameters from the current posterior, as
	// PosteriorProposals, and trains NPE with APT's atomic loss from the second round on
	// (Greenberg et al. 2019; sbi's default SNPE-C, with its 10 atoms), which corrects for the
	// proposal: its optimum is the posterior under the prior whatever the proposal. NPE only.
	AtomicProposals SequentialMethod = "apt"
)

// SequentialConfig sets the rounds of Sequential. Zero fields take the defaults.
type SequentialConfig struct {
	// Method is how rounds after the first draw their parameters; "" picks by the estimator
	// (TruncatedProposals for NPE, NPEEnsemble and FMPE, PosteriorProposals otherwise).
	Method SequentialMethod
	// Rounds is the number of rounds, the first from the prior; 0 means 2.
	Rounds int
	// Simulations is the number of parameters simulated per round; 0 means 1000.
	Simulations int
	// Train trains the estimator in every round on the pairs of all rounds so far. Rounds
	// after the first continue from the weights and standardization of the round before
	// (TrainConfig.Resume, as sbi does) unless FromScratch is set; round r trains with seed
	// Train.Seed + r − 1.
	Train TrainConfig
	// FromScratch trains every round from fresh weights; it cannot be set with Train.Resume.
	FromScratch bool
	// Epsilon is the posterior mass left outside the truncated region, ε; 0 means 1e-4 (the
	// value of Deistler et al. 2022 and of sbi).
	Epsilon float64
	// ThresholdSamples is the number of posterior draws whose log densities set the region's
	// threshold (their ε-quantile); 0 means 10,000 (sbi's number).
	ThresholdSamples int
	// MinAcceptance is the smallest share of prior draws inside the truncated region with which
	// sampling it goes on: below it (measured on at least 10,000 draws) Sequential stops with
	// an error wrapping ErrLowAcceptance; 0 means MinAcceptanceRate.
	MinAcceptance float64
	// Atoms is the number of atoms per observation of APT's atomic loss (AtomicProposals);
	// 0 means 10 (sbi's num_atoms).
	Atoms int
	// Seed seeds the proposals' draws and the simulations.
	Seed uint64
	// Continue is the result of an earlier Sequential call, stopped by an interrupt or an
	// error or finished, to carry on from: rounds already trained are neither simulated nor
	// trained again, a round whose training was stopped is trained again on its pairs, and a
	// round whose simulation was stopped keeps its finished simulations and simulates the
	// rest. Rounds may exceed the earlier call's, to add rounds to a finished run. The
	// estimator must be the earlier call's, holding the weights that call left, and Method,
	// Simulations and Seed must be the same; Train, Epsilon, ThresholdSamples, MinAcceptance
	// and Atoms apply to what is done now.
	//
	// With the same settings the continued run draws what the uninterrupted run would have
	// drawn: the same proposals, simulations, thresholds and final region. The exception is a
	// round whose training was stopped and that resumes from the weights of the round before
	// (rounds after the first, without FromScratch): it is trained again from the weights the
	// stopped training kept (its best epoch), not from the round before's, so its weights and
	// all that follows differ from the uninterrupted run's. Another is a round whose simulator
	// panicked on some rows: a chunk of rows where a row panicked was run again row by row, each
	// row with its own random stream (see PartialSimulationError), so those rows' simulations,
	// and the trainings after them, differ from the uninterrupted run's; the round's parameters
	// do not. A continued result is a new
	// value; the earlier one is left as it was, except that a simulation finished from it is
	// not held by it any more (continue from the new result).
	Continue *SequentialResult
}

func (c SequentialConfig) withDefaults() SequentialConfig {
	if c.Rounds == 0 {
		c.Rounds = 2
	}
	if c.Simulations == 0 {
		c.Simulations = 1000
	}
	if c.Epsilon == 0 {
		c.Epsilon = 1e-4
	}
	if c.ThresholdSamples == 0 {
		c.ThresholdSamples = 10_000
	}
	if c.MinAcceptance == 0 {
		c.MinAcceptance = MinAcceptanceRate
	}
	if c.Atoms == 0 {
		c.Atoms = 10
	}
	return c
}

func (c SequentialConfig) validate() error {
	switch {
	case c.Method != "" && c.Method != TruncatedProposals && c.Method != PosteriorProposals && c.Method != AtomicProposals:
		return fmt.Errorf("unknown Method %q: expected %q, %q or %q", c.Method, TruncatedProposals, PosteriorProposals, AtomicProposals)
	case c.Atoms < 2:
		return fmt.Errorf("Atoms = %d, expected at least 2 (0 for sbi's 10)", c.Atoms)
	case c.Rounds < 1:
		return fmt.Errorf("Rounds = %d, expected at least 1", c.Rounds)
	case c.Simulations < 2:
		return fmt.Errorf("Simulations = %d, expected at least 2 per round", c.Simulations)
	case !(c.Epsilon > 0 && c.Epsilon < 1):
		return fmt.Errorf("Epsilon = %g, expected a mass in (0, 1)", c.Epsilon)
	case c.ThresholdSamples < 1:
		return fmt.Errorf("ThresholdSamples = %d, expected at least 1", c.ThresholdSamples)
	case !(c.MinAcceptance > 0 && c.MinAcceptance < 1):
		return fmt.Errorf("MinAcceptance = %g, expected a share in (0, 1)", c.MinAcceptance)
	case c.FromScratch && c.Train.Resume:
		return fmt.Errorf("FromScratch trains every round from fresh weights and Train.Resume from the estimator's: set one of them")
	}
	return nil
}

// SequentialRound is the record of one round of Sequential.
type SequentialRound struct {
	Round    int    // 1, 2, …
	Proposal string // where the round's parameters came from: "prior", "truncated prior", "posterior"
	// Simulations is the number of parameters simulated; Dropped of them failed (NaN or ±Inf)
	// and were removed before training.
	Simulations, Dropped int
	// Acceptance is the share of prior draws that fell inside the truncated region (1 for the
	// prior, NaN for posterior proposals).
	Acceptance float64
	// Threshold is the region's log-density threshold (NaN unless the proposal is truncated).
	Threshold float64
	// Pairs is the number of pairs the round trained on, those of all rounds so far.
	Pairs int
	// Train is the round's training result, nil when the training failed before giving one
	// (Sequential's error says why; the round's pairs are kept in the result all the same).
	Train *TrainResult
}

// SequentialResult is what Sequential returns: the estimator trained in the last round, its
// posterior at the observation and the record of every round.
type SequentialResult struct {
	Method      SequentialMethod
	Observation []float64
	Estimator   Estimator
	// Posterior is Estimator.Posterior(Observation) after the last round: built from the
	// weights the estimator holds, also when the last round's training was stopped (its best
	// epoch kept); nil when a stopped training left the estimator untrained.
	Posterior Posterior
	Rounds    []SequentialRound
	// Region is the final posterior's truncated region (the prior truncated to its
	// highest-density region at 1 − Epsilon), from which a next round would draw, and from
	// which to draw test pairs for the calibration in the observation's neighbourhood; nil
	// unless Method is TruncatedProposals.
	Region *TruncatedPrior
	// Theta and X are the pairs of all rounds simulated, in order of rounds (RoundPairs gives
	// one round's).
	Theta, X *mat.Dense

	state *sequentialState // where a continued run carries on (SequentialConfig.Continue)
}

// sequentialStep is what Sequential does next.
type sequentialStep int

const (
	stepPropose  sequentialStep = iota // draw and simulate the parameters of the next round
	stepSimulate                       // finish the interrupted simulation of the next round
	stepTrain                          // train the last round of Rounds (again)
)

// sequentialState is what SequentialConfig.Continue needs to carry on a run as it would have
// gone: the settings and the state of the generator at the start of the next step.
type sequentialState struct {
	cfg   SequentialConfig
	step  sequentialStep
	rng   []byte                  // the PCG's state at the start of step
	round SequentialRound         // the round whose simulation part holds (stepSimulate)
	part  *PartialSimulationError // the interrupted simulation (stepSimulate)
}

// set records that step is next, starting from src's state now.
func (st *sequentialState) set(step sequentialStep, src *rand.PCG) {
	b, err := src.MarshalBinary()
	if err != nil {
		panic(fmt.Sprintf("sbi: Sequential: saving the generator: %v", err)) // PCG's MarshalBinary does not fail
	}
	st.step, st.rng = step, b
}

// String is a table of the rounds.
func (r *SequentialResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sequential inference (%s proposals), %d rounds\n", r.Method, len(r.Rounds))
	fmt.Fprintf(&b, "%5s  %-15s  %11s  %7s  %10s  %10s  %6s  %10s\n", "round", "proposal", "simulations", "dropped", "acceptance", "threshold", "pairs", "best loss")
	for _, rd := range r.Rounds {
		loss := math.NaN()
		if rd.Train != nil {
			loss = rd.Train.BestLoss
		}
		fmt.Fprintf(&b, "%5d  %-15s  %11d  %7d  %10.4g  %10.4g  %6d  %10.4g\n", rd.Round, rd.Proposal, rd.Simulations, rd.Dropped, rd.Acceptance, rd.Threshold, rd.Pairs, loss)
	}
	if st := r.state; st != nil && st.step == stepSimulate && !st.part.resumed {
		if st.part.endedByPanic() {
			fmt.Fprintf(&b, "round %d: simulation stopped: %s panicked; %d of %d finished and kept (mend the simulator and continue with SequentialConfig.Continue, which simulates those rows again)\n",
				st.round.Round, plural(len(st.part.Panicked), "row"), st.part.Finished, st.part.Total)
		} else {
			fmt.Fprintf(&b, "round %d: simulation interrupted, %d of %d finished and kept (continue with SequentialConfig.Continue)\n", st.round.Round, st.part.Finished, st.part.Total)
		}
	}
	return b.String()
}

// MIMEBundle shows the table of rounds as text.
func (r *SequentialResult) MIMEBundle() map[string]any {
	return map[string]any{"text/plain": r.String()}
}

// Sequential infers the posterior at the observation xo in rounds: the first simulates
// cfg.Simulations parameters drawn from the estimator's prior, every later round as many
// drawn from a proposal made of the current posterior (cfg.Method), and every round trains
// est on the pairs of all rounds so far (with APT's atomic loss from the second round on under
// AtomicProposals, with its own loss otherwise). It reports each round's progress (and the
// simulations' and training's own) through runenv, and stops when the host's context is
// cancelled.
//
// The final posterior is right at xo and at observations near it, not amortized over the
// prior: check its calibration on pairs drawn from the result's Region (or the last proposal),
// not from the prior.
//
// On an error (a simulator failure, a training error, ErrLowAcceptance when the truncated
// region holds less than cfg.MinAcceptance of the prior's mass, an interrupt) it returns the
// result of the rounds that finished together with the error; the estimator keeps its last
// training. A round whose training was stopped (an interrupt keeps the best epoch done, see
// NPE.Train) or failed is recorded in the result with its pairs (its Train nil when the
// training gave no result), and the result's Posterior is that of the weights the estimator
// holds, nil when it holds none. A round whose simulation was stopped (an interrupt, or a
// simulator that panicked on some rows, which stops the round once its other rows are
// simulated) is not in Rounds: the result holds its finished simulations for a continued run
// (String says how many), which simulates the rest, the rows that panicked included (mend the
// simulator first). Pass the
// result as SequentialConfig.Continue to carry on from where it stopped. In a notebook, a cell
// res, err := sbi.Sequential(…) that is interrupted keeps res and err (the interpreter keeps
// what an interrupted call returned); MustSequential, which panics with the error, returns no
// result at all.
func Sequential(est Estimator, sim Simulator, xo []float64, cfg SequentialConfig) (*SequentialResult, error) {
	return SequentialContext(runenv.Context(), est, sim, xo, cfg)
}

// MustSequential is Sequential for notebook cells: it panics with Sequential's error, so an
// interrupt loses the result that keeps the work done. For a long run use Sequential
// (res, err := sbi.Sequential(…), which an interrupted cell keeps) and pass that result as
// SequentialConfig.Continue to carry on.
func MustSequential(est Estimator, sim Simulator, xo []float64, cfg SequentialConfig) *SequentialResult {
	return safe.Must(Sequential(est, sim, xo, cfg))
}

// SequentialContext is Sequential stopped by ctx instead of the host's context.
func SequentialContext(ctx context.Context, est Estimator, sim Simulator, xo []float64, cfg SequentialConfig) (*SequentialResult, error) {
	if est == nil || sim == nil {
		panic("sbi: Sequential: the estimator and the simulator must not be nil")
	}
	cont := cfg.Continue
	cfg.Continue = nil
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("sequential: %w", err)
	}
	method, err := sequentialMethod(est, cfg.Method)
	if err != nil {
		return nil, err
	}
	if len(xo) != sim.DataDim() {
		panic(fmt.Sprintf("sbi: Sequential: the observation has %d values, the simulator's data %d", len(xo), sim.DataDim()))
	}
	if !finite(xo) {
		return nil, fmt.Errorf("sequential: the observation: %w: %s", ErrNonFinite, whereNonFinite(xo))
	}
	src := rand.NewPCG(cfg.Seed, 0x73657175)
	res := &SequentialResult{Method: method, Observation: append([]float64(nil), xo...), Estimator: est, state: &sequentialState{cfg: cfg}}
	res.state.set(stepPropose, src)
	if cont != nil {
		if res, err = continued(cont, est, sim, res, cfg); err != nil {
			return nil, fmt.Errorf("sequential: Continue: %w", err)
		}
		if err := src.UnmarshalBinary(res.state.rng); err != nil {
			return nil, fmt.Errorf("sequential: Continue: restoring the generator: %w", err)
		}
	}
	prog := NewProgress(fmt.Sprintf("sequential (%s proposals)", method), cfg.Rounds)
	defer prog.Finish()
	prog.estimate(runenv.EstimateNone) // each round trains on more pairs than the last
	if done := res.roundsDone(); done > 0 {
		prog.resume(done)
	}
	res, err = res.run(keptIn(ctx, "the result Sequential returns with the error (MustSequential loses it)"), sim, src, prog)
	if cancel.Stopped(ctx, err) {
		prog.note(res.interruptNote())
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		err = &sequentialInterrupt{err}
	}
	return res, err
}

// interruptNote is the last progress message of a run that an interrupt stopped: the round
// it stopped in and what the result keeps of the rounds so far.
func (res *SequentialResult) interruptNote() string {
	st := res.state
	trained, r := res.roundsDone(), len(res.Rounds)+1
	switch st.step {
	case stepTrain:
		r = len(res.Rounds)
	case stepSimulate:
		r = st.round.Round
	}
	var kept []string
	switch {
	case trained == 1:
		kept = append(kept, "round 1 trained")
	case trained > 1:
		kept = append(kept, fmt.Sprintf("rounds 1 to %d trained", trained))
	}
	switch {
	case st.step == stepTrain:
		kept = append(kept, fmt.Sprintf("the pairs of round %d, whose training stopped", r))
	case st.step == stepSimulate && st.part.Finished > 0:
		kept = append(kept, fmt.Sprintf("%d of %d simulations of round %d", st.part.Finished, st.part.Total, r))
	}
	where := fmt.Sprintf("in round %d of %d", r, st.cfg.Rounds)
	if r > st.cfg.Rounds {
		where = "drawing the final region"
	}
	if len(kept) == 0 {
		return fmt.Sprintf("stopped by interrupt %s; %s", where, cancel.NothingKept)
	}
	return fmt.Sprintf("stopped by interrupt %s; kept in the result returned with the error (MustSequential loses it): %s; carry on with SequentialConfig.Continue = res",
		where, strings.Join(kept, " and "))
}

// roundsDone is the number of rounds trained to the end: those of Rounds but one whose
// training is next.
func (res *SequentialResult) roundsDone() int {
	if res.state.step == stepTrain {
		return len(res.Rounds) - 1
	}
	return len(res.Rounds)
}

// sequentialInterrupt is the error of an interrupted Sequential: it says how to keep the
// work done and carry on with it.
type sequentialInterrupt struct{ err error }

func (e *sequentialInterrupt) Error() string {
	return e.err.Error() + "; the result returned with this error keeps the work done: keep it (res, err := sbi.Sequential(est, sim, xo, cfg), which an interrupted notebook cell keeps; MustSequential loses it) and carry on with the same settings and cfg.Continue = res"
}

func (e *sequentialInterrupt) Unwrap() error { return e.err }

// run carries out the steps from res.state on until the final region or an error.
func (res *SequentialResult) run(ctx context.Context, sim Simulator, src *rand.PCG, prog *Progress) (*SequentialResult, error) {
	st := res.state
	rng := rand.New(src)
	for {
		var err error
		switch r := len(res.Rounds); {
		case st.step == stepSimulate:
			err = res.finishSimulation(ctx, sim, src, prog)
		case st.step == stepTrain:
			err = res.trainRound(ctx, src, prog)
		case r < st.cfg.Rounds:
			err = res.newRound(ctx, sim, src, rng, prog)
		default: // all rounds trained, stepPropose set with the generator's state now
			if res.Region != nil || res.Method != TruncatedProposals {
				return res, nil
			}
			reg, err := newTruncatedPrior(ctx, rng, res.Estimator, res.Posterior, st.cfg)
			if err != nil {
				return res, fmt.Errorf("sequential: the final region: %w", err)
			}
			res.Region = reg
			return res, nil
		}
		if err != nil {
			return res, err
		}
	}
}

// newRound draws the parameters of the next round and simulates them. An interrupted
// simulation is kept in the state, to be finished by a continued run.
func (res *SequentialResult) newRound(ctx context.Context, sim Simulator, src *rand.PCG, rng *rand.Rand, prog *Progress) error {
	st, cfg := res.state, res.state.cfg
	r := len(res.Rounds) + 1
	st.set(stepPropose, src)
	res.Region = nil
	rd := SequentialRound{Round: r, Simulations: cfg.Simulations, Acceptance: math.NaN(), Threshold: math.NaN()}
	prog.Set(r-1, fmt.Sprintf("round %d of %d: drawing parameters", r, cfg.Rounds))
	theta, err := res.propose(ctx, rng, &rd, cfg)
	if err != nil {
		return fmt.Errorf("sequential: round %d: %w", r, err)
	}
	prog.Set(r-1, fmt.Sprintf("round %d of %d: simulating", r, cfg.Rounds))
	s, err := SimulateBatchContext(ctx, rng, sim, theta)
	var part *PartialSimulationError
	if errors.As(err, &part) {
		st.set(stepSimulate, src)
		st.round, st.part = rd, part
		return keptSimulations(r, part)
	}
	if err != nil {
		return fmt.Errorf("sequential: round %d: %w", r, err)
	}
	res.addPairs(rd, s, src)
	return nil
}

// finishSimulation simulates the rest of the next round's interrupted simulation.
func (res *SequentialResult) finishSimulation(ctx context.Context, sim Simulator, src *rand.PCG, prog *Progress) error {
	st := res.state
	r := st.round.Round
	prog.Set(r-1, fmt.Sprintf("round %d of %d: simulating the %d of %d not finished", r, st.cfg.Rounds, st.part.Total-st.part.Finished, st.part.Total))
	s, err := st.part.resume(ctx, sim)
	var part *PartialSimulationError
	if errors.As(err, &part) {
		return keptSimulations(r, part)
	}
	if err != nil {
		return fmt.Errorf("sequential: round %d: %w", r, err)
	}
	st.part = nil
	res.addPairs(st.round, s, src)
	return nil
}

// keptSimulations is the error of round r's simulation stopped with part, which the result
// keeps: it leaves part out of the chain, as part resumed on its own would be lost to the
// continued run.
func keptSimulations(r int, part *PartialSimulationError) error {
	n := len(part.Panicked)
	switch {
	case n == 0:
		return fmt.Errorf("sequential: round %d: %w: %d of %d simulations finished, kept in the result", r, part.Err, part.Finished, part.Total)
	case !part.endedByPanic():
		return fmt.Errorf("sequential: round %d: %w (%s panicked before it, simulated again by a continued run): %d of %d simulations finished, kept in the result", r, part.Err, plural(n, "row")+" had", part.Finished, part.Total)
	}
	return fmt.Errorf("sequential: round %d: %w (%s panicked): %d of %d simulations finished, kept in the result returned with this error; mend the simulator and carry on with the same settings and cfg.Continue = res, which simulates the %s that panicked again",
		r, part.Err, plural(n, "row"), part.Finished, part.Total, plural(part.Total-part.Finished, "row"))
}

// addPairs records round rd, whose simulation s finished, with its pairs; its training is next.
func (res *SequentialResult) addPairs(rd SequentialRound, s *Simulation, src *rand.PCG) {
	rd.Dropped = s.Dropped
	res.Theta, res.X = stackRows(res.Theta, s.Theta), stackRows(res.X, s.X)
	rd.Pairs = res.Theta.RawMatrix().Rows
	res.Rounds = append(res.Rounds, rd) // its pairs are in Theta and X, trained or not
	res.state.set(stepTrain, src)
}

// trainRound trains the estimator in the last round of Rounds on the pairs of all rounds.
func (res *SequentialResult) trainRound(ctx context.Context, src *rand.PCG, prog *Progress) error {
	cfg := res.state.cfg
	r := len(res.Rounds)
	rd := &res.Rounds[r-1]
	tc := cfg.Train
	tc.Seed += uint64(r - 1)
	tc.Resume = tc.Resume || r > 1 && !cfg.FromScratch
	prog.Set(r-1, fmt.Sprintf("round %d of %d: training on %d pairs", r, cfg.Rounds, rd.Pairs))
	var err error
	rd.Train, err = res.train(ctx, r, tc, cfg)
	if err != nil {
		res.Posterior = currentPosterior(res.Estimator, res.Observation)
		return fmt.Errorf("sequential: round %d: %w", r, err)
	}
	res.Posterior = res.Estimator.Posterior(res.Observation)
	res.state.set(stepPropose, src)
	prog.Set(r, fmt.Sprintf("round %d of %d done: best loss %.4g", r, cfg.Rounds, rd.Train.BestLoss))
	return nil
}

// continued returns a copy of c to carry on with the settings cfg, after checking that c is
// a result of est's run with the same settings that fixed its pairs; fresh holds the method
// and observation of this call.
func continued(c *SequentialResult, est Estimator, sim Simulator, fresh *SequentialResult, cfg SequentialConfig) (*SequentialResult, error) {
	st := c.state
	started := len(c.Rounds)
	if st != nil && st.step == stepSimulate {
		started++
	}
	switch {
	case st == nil:
		return nil, fmt.Errorf("the result was not returned by Sequential (it holds no state to carry on from)")
	case !sameEstimator(c.Estimator, est):
		return nil, fmt.Errorf("the result is of another estimator (%T): pass the estimator that run trained, holding the weights it left", c.Estimator)
	case c.Method != fresh.Method:
		return nil, fmt.Errorf("the result used %s proposals, this call %s: set Method as before", c.Method, fresh.Method)
	case !floats.Equal(c.Observation, fresh.Observation):
		return nil, fmt.Errorf("the result is for the observation %v, this call for %v", c.Observation, fresh.Observation)
	case st.cfg.Simulations != cfg.Simulations || st.cfg.Seed != cfg.Seed:
		return nil, fmt.Errorf("the result had Simulations = %d and Seed = %d, this call %d and %d: set them as before", st.cfg.Simulations, st.cfg.Seed, cfg.Simulations, cfg.Seed)
	case cfg.Rounds < started:
		return nil, fmt.Errorf("Rounds = %d, but the result has started %d rounds: expected at least %d", cfg.Rounds, started, started)
	case c.X != nil && c.X.RawMatrix().Cols != sim.DataDim():
		return nil, fmt.Errorf("the result's simulations have %d values, this simulator's %d: pass the simulator of that run", c.X.RawMatrix().Cols, sim.DataDim())
	case st.step == stepSimulate && st.part.resumed:
		return nil, fmt.Errorf("the result's interrupted simulation was finished by a continued run already: continue from that run's result")
	}
	res := *c
	res.Rounds = append([]SequentialRound(nil), c.Rounds...)
	nst := *st
	nst.cfg = cfg
	res.state = &nst
	return &res, nil
}

// sameEstimator reports whether a and b are the same estimator (false for values that cannot
// be compared).
func sameEstimator(a, b Estimator) bool {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) || !reflect.TypeOf(a).Comparable() {
		return false
	}
	return a == b
}

// currentPosterior is the posterior of the weights est holds at xo, nil when it holds none: a
// training stopped by an interrupt or an error may have changed them (keeping its best
// epoch), and the posterior of the round before would then hold what the old weights computed
// of xo (its embedding, its standardization) beside the new ones.
func currentPosterior(est Estimator, xo []float64) Posterior {
	if !est.Trained() {
		return nil
	}
	return est.Posterior(xo)
}

// RoundPairs returns the pairs simulated in round (1, 2, …), without those that failed: rows
// of Theta and X. It panics when the result has no such round.
func (r *SequentialResult) RoundPairs(round int) (theta, x *mat.Dense) {
	if round < 1 || round > len(r.Rounds) {
		panic(fmt.Sprintf("sbi: SequentialResult.RoundPairs: round %d, expected 1 to %d", round, len(r.Rounds)))
	}
	rd := r.Rounds[round-1]
	lo := rd.Pairs - (rd.Simulations - rd.Dropped)
	_, dt := r.Theta.Dims()
	_, dx := r.X.Dims()
	return r.Theta.Slice(lo, rd.Pairs, 0, dt).(*mat.Dense), r.X.Slice(lo, rd.Pairs, 0, dx).(*mat.Dense)
}

// train trains the estimator in round r on the pairs of all rounds, with APT's atomic loss
// from the second round on when the method is AtomicProposals; from the second round on it
// marks the estimator as trained on a proposal (TrainingProposal).
func (res *SequentialResult) train(ctx context.Context, r int, tc TrainConfig, cfg SequentialConfig) (*TrainResult, error) {
	if npe, ok := res.Estimator.(*NPE); ok && res.Method == AtomicProposals && r > 1 {
		npe.apt = aptState{atoms: cfg.Atoms}
		defer func() { npe.apt = aptState{} }()
	}
	tr, err := res.Estimator.TrainContext(ctx, res.Theta, res.X, tc)
	if r > 1 {
		rounds := fmt.Sprintf("rounds 2 to %d", r)
		if r == 2 {
			rounds = "round 2"
		}
		markProposal(res.Estimator, fmt.Sprintf("Sequential (method %q) drew the parameters of %s from the %s near one observation", res.Method, rounds, res.Rounds[r-1].Proposal))
	}
	return tr, err
}

// markProposal records in est's weights that they were trained on parameters drawn from a
// proposal other than the prior (see Estimator kinds' TrainingProposal); an estimator of
// another type is not marked.
func markProposal(est Estimator, what string) {
	switch e := est.(type) {
	case interface{ core() *estimator }:
		e.core().proposal = what
	case interface{ cores() []*estimator }:
		for _, c := range e.cores() {
			c.proposal = what
		}
	}
}

// TrainingProposal says where the parameters of the estimator's current training came from
// when they were not drawn from its prior: Sequential's rounds after the first train on
// parameters drawn near the observation (a truncated prior, or the posterior itself), so the
// posterior is fitted there and not amortized over the prior. It is "" for an estimator
// trained on the prior or untrained; Save stores it and Load restores it, except from a file
// of format 3 or older, which did not store it (see EstimatorFormatVersion). A
// training that does not resume (Train without TrainConfig.Resume) clears it; one that
// resumes keeps it. Package certify reads it to refuse a claim over the whole prior.
func (c *estimator) TrainingProposal() string { return c.proposal }

// TrainingProposal is the first non-empty TrainingProposal of the members (see
// NPE.TrainingProposal), "" when none has one.
func (e *NPEEnsemble) TrainingProposal() string { return firstProposal(e.cores()) }

// TrainingProposal is the first non-empty TrainingProposal of the members (see
// NRE.TrainingProposal), "" when none has one.
func (e *NREEnsemble) TrainingProposal() string { return firstProposal(e.cores()) }

// TrainingProposalOf is est's TrainingProposal (see NPE.TrainingProposal) when it has one: where
// the parameters of its training came from when not from its prior; "" for an estimator
// trained on its prior, and for one without the method. Checks over the whole prior (package
// diag's notes, package certify's refusal) read it so that they tell such an estimator apart.
func TrainingProposalOf(est Amortized) string {
	if p, ok := est.(interface{ TrainingProposal() string }); ok {
		return p.TrainingProposal()
	}
	return ""
}

// firstProposal is the first non-empty TrainingProposal of an ensemble's members, "" when none
// has one.
func firstProposal(members []*estimator) string {
	for _, c := range members {
		if c.proposal != "" {
			return c.proposal
		}
	}
	return ""
}

// sequentialMethod returns the method m names for est, or its default when m is "".
func sequentialMethod(est Estimator, m SequentialMethod) (SequentialMethod, error) {
	posteriorEstimator := false
	switch est.(type) {
	case *NPE, *NPEEnsemble, *FMPE:
		posteriorEstimator = true
	}
	switch {
	case m == "" && posteriorEstimator:
		return TruncatedProposals, nil
	case m == "":
		return PosteriorProposals, nil
	case m == PosteriorProposals && posteriorEstimator:
		return "", fmt.Errorf("sequential: %T with posterior proposals would learn the posterior under the proposal, not under the prior: use TruncatedProposals, AtomicProposals (APT's correction, NPE only), or a ratio estimator (NRE)", est)
	case m == AtomicProposals:
		if _, ok := est.(*NPE); !ok {
			return "", fmt.Errorf("sequential: AtomicProposals is APT's loss for NPE; %T has none: use %s", est, map[bool]SequentialMethod{true: TruncatedProposals, false: PosteriorProposals}[posteriorEstimator])
		}
	}
	return m, nil
}

// propose draws the parameters of round rd: from the prior in the first round, else from the
// method's proposal at the current posterior.
func (res *SequentialResult) propose(ctx context.Context, rng *rand.Rand, rd *SequentialRound, cfg SequentialConfig) (*mat.Dense, error) {
	prior := res.Estimator.Prior()
	if rd.Round == 1 {
		rd.Proposal, rd.Acceptance = "prior", 1
		return prior.Sample(rng, cfg.Simulations), nil
	}
	if res.Method == PosteriorProposals || res.Method == AtomicProposals {
		rd.Proposal = "posterior"
		return sampleContext(ctx, res.Posterior, rng, cfg.Simulations)
	}
	rd.Proposal = "truncated prior"
	tp, err := newTruncatedPrior(ctx, rng, res.Estimator, res.Posterior, cfg)
	if err != nil {
		return nil, err
	}
	rd.Threshold = tp.Threshold
	theta, err := tp.SampleContext(ctx, rng, cfg.Simulations)
	rd.Acceptance = tp.Acceptance()
	return theta, err
}

// TruncatedPrior is a prior truncated to the highest-density region of a posterior,
// {θ : log q(θ | xo) ≥ Threshold}, where Threshold is the ε-quantile of the log densities of
// draws from q, so that the region holds 1 − ε of q's mass (Deistler et al. 2022, eq. 4).
// It samples by rejection from the prior and reports the share accepted, an estimate of the
// region's prior mass. It is safe for concurrent use.
type TruncatedPrior struct {
	prior dist.Distribution
	post  Posterior
	// Threshold is the least log q(θ | xo) inside the region; Epsilon the mass of q outside.
	Threshold, Epsilon float64
	floor              float64 // MinAcceptance

	count acceptance // the prior's draws and those inside the region
}

// newTruncatedPrior sets the threshold of post's region at 1 − cfg.Epsilon from
// cfg.ThresholdSamples draws.
func newTruncatedPrior(ctx context.Context, rng *rand.Rand, est Estimator, post Posterior, cfg SequentialConfig) (*TruncatedPrior, error) {
	draws, err := sampleContext(ctx, post, rng, cfg.ThresholdSamples)
	if err != nil {
		return nil, fmt.Errorf("drawing %d posterior samples for the region's threshold: %w", cfg.ThresholdSamples, err)
	}
	lp := post.LogProb(draws)
	th := quantileLinear(lp, cfg.Epsilon)
	if math.IsNaN(th) || math.IsInf(th, 0) {
		return nil, fmt.Errorf("%w: the %g-quantile of the posterior's log densities is %g: the posterior's density is not finite at its own draws", ErrDiverged, cfg.Epsilon, th)
	}
	return &TruncatedPrior{prior: est.Prior(), post: post, Threshold: th, Epsilon: cfg.Epsilon, floor: cfg.MinAcceptance}, nil
}

// quantileLinear is the q-quantile of v with linear interpolation between order statistics
// (position q·(n−1), as numpy's and torch's default), NaN for no values.
func quantileLinear(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	f := pos - float64(lo)
	if f == 0 {
		return s[lo]
	}
	return s[lo] + f*(s[lo+1]-s[lo])
}

// Dim is the number of parameters.
func (t *TruncatedPrior) Dim() int { return t.prior.Dim() }

// Contains reports whether θ lies in the region: in the prior's support, with
// log q(θ | xo) ≥ Threshold. A θ of another length than Dim is not in it.
func (t *TruncatedPrior) Contains(theta []float64) bool {
	if len(theta) != t.Dim() {
		return false
	}
	return t.inside(mat.NewDense(1, len(theta), append([]float64(nil), theta...)))[0]
}

// InSupport is Contains: the region is the support of the truncated prior.
func (t *TruncatedPrior) InSupport(theta []float64) bool { return t.Contains(theta) }

// Support is the prior's box (the region's own bounds are not computed).
func (t *TruncatedPrior) Support() (low, high []float64) { return t.prior.Support() }

// LogProb is the prior's log density inside the region and −Inf outside it, not renormalized
// by the region's prior mass (subtract log Acceptance() for that).
func (t *TruncatedPrior) LogProb(theta *mat.Dense) []float64 {
	out := t.prior.LogProb(theta)
	lq := t.post.LogProb(theta)
	for i := range out {
		if !(lq[i] >= t.Threshold) {
			out[i] = math.Inf(-1)
		}
	}
	return out
}

// Acceptance is the share of prior draws that fell inside the region over all draws so far,
// NaN before the first.
func (t *TruncatedPrior) Acceptance() float64 { return t.count.rate() }

// Sample draws n parameter vectors from the truncated prior, stopped by the host's context;
// it panics with SampleContext's error (the shorthand of the package's naming rule).
func (t *TruncatedPrior) Sample(rng *rand.Rand, n int) *mat.Dense {
	return safe.Must(t.SampleContext(runenv.Context(), rng, n))
}

// SampleContext draws n parameter vectors from the prior, keeping those inside the region,
// until ctx is done. It returns an error wrapping ErrLowAcceptance when fewer than the floor
// (SequentialConfig.MinAcceptance) of the prior's draws land in the region, measured on at
// least 10,000 draws. n·Dim may be at most 2²⁶ (67,108,864) values: a larger request returns
// an error before anything is drawn (draw in several calls).
func (t *TruncatedPrior) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if err := checkSampleSize("truncated prior", n, t.Dim()); err != nil {
		return nil, err
	}
	out := mat.NewDense(n, t.Dim(), nil)
	got, proposed, accepted := 0, 0, 0
	defer func() { t.count.add(proposed, accepted) }()
	for got < n {
		if err := cancel.Check(ctx, "sampling the truncated prior"); err != nil {
			return nil, cancel.Drawn(ctx, err, got, n)
		}
		rate := float64(accepted+1) / float64(proposed+1)
		m := min(int(float64(n-got)/max(rate, t.floor)*1.1)+1, 1<<18)
		cand := t.prior.Sample(rng, m)
		lq := t.post.LogProb(cand)
		for i, v := range lq {
			if !(v >= t.Threshold) {
				continue
			}
			accepted++
			if got < n {
				copy(out.RawRowView(got), cand.RawRowView(i))
				got++
			}
		}
		proposed += m
		if got < n && proposed >= 10_000 && float64(accepted) < t.floor*float64(proposed) {
			return nil, fmt.Errorf("truncated prior: %w: only %d of %d prior draws (%.2g%%) fell in the posterior's region of mass 1 − %g, below the floor of %.2g%%: the posterior is too narrow for rejection from the prior (raise Epsilon, lower MinAcceptance at the cost of time, or use a ratio estimator with posterior proposals)",
				ErrLowAcceptance, accepted, proposed, 100*float64(accepted)/float64(proposed), t.Epsilon, 100*t.floor)
		}
	}
	return out, nil
}

// inside reports for every row of theta whether it lies in the region.
func (t *TruncatedPrior) inside(theta *mat.Dense) []bool {
	lq := t.post.LogProb(theta)
	out := make([]bool, len(lq))
	for i, v := range lq {
		out[i] = v >= t.Threshold && t.prior.InSupport(theta.RawRowView(i))
	}
	return out
}

// String says what the region is and its acceptance so far.
func (t *TruncatedPrior) String() string {
	return fmt.Sprintf("prior truncated to the posterior's region of mass 1 − %g (log q ≥ %.4g), acceptance %.4g", t.Epsilon, t.Threshold, t.Acceptance())
}

// stackRows returns the rows of a followed by those of b (b alone when a is nil).
func stackRows(a, b *mat.Dense) *mat.Dense {
	if a == nil {
		return mat.DenseCopyOf(b)
	}
	ra, c := a.Dims()
	rb, _ := b.Dims()
	out := mat.NewDense(ra+rb, c, nil)
	out.Slice(0, ra, 0, c).(*mat.Dense).Copy(a)
	out.Slice(ra, ra+rb, 0, c).(*mat.Dense).Copy(b)
	return out
}
