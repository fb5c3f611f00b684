// Package viz draws the figures of simulation-based inference on gonum.org/v1/plot: coverage
// curves, corner plots of posterior samples, marginals of several posteriors overlaid,
// conditional pair plots, SBC rank histograms and ECDF differences with simultaneous bands,
// the recovery view, the local diagnostics at an observation (L-C2ST, misspecification,
// predictive checks), MCMC traces and rank plots, training curves that update live, 2-D
// densities with HPD contours, metric-versus-budget sweeps and grids of small multiples. Each
// plot draws the arrays of the diag result it is given, so that figure and verdict agree.
//
// The figure constructors return a *Plot (some with an error, see below), which renders on
// demand: PNG and SVG bytes, Save to a file, and MIMEBundle, so that a notebook shows it inline
// when it is the last expression of a cell (its PNG, and its SVG up to MaxInlineSVG bytes; a
// PNG holds at most MaxPNGPixels); Show displays it at once through package display.
// A Loss (NewLoss) redraws itself in place while training runs. Three functions return no
// figure: Report returns a diag calibration report together with its figures, for display
// (package diag does not draw), and StudySweep and StudyCoverage turn the rows of a study table
// into what a figure takes: a SweepSeries for BudgetSweep and a diag.CoverageResult for
// Coverage.
//
// Errors come in three forms, by what a constructor takes. Those that draw a diag result
// (Coverage, MarginalCoverage, TARP, SBCRanks, SBCECDF, Recovery, MCMC, LC2ST,
// Misspecification, PredictiveCheck) do not panic on it: a result they cannot draw gives a Plot whose rendering
// (PNG, SVG, Save, MIMEBundle) returns an error saying why, which Report shows as a line in
// place of the figure. Those that evaluate a density or take
// data that is only known at run time (Density2D, ConditionalPairs, BudgetSweep, StudySweep,
// StudyCoverage) return an error, and their MustX forms, where there is one, panic with it.
// The figures of samples with options (Corner, CornerWith, Marginals) panic, before anything
// is drawn, on samples or options that do not fit or exceed a limit (a set without a finite
// draw, a wrong number of names or values, a non-finite true value or axis limit, Bins over
// MaxHistogramBins, Points over MaxDensityPoints, more parameters than MaxCornerParams or grid
// cells than MaxCornerCells), as a slice index out of range does: these are mistakes in the
// call, and Report draws none of these figures.
//
// Plots use a sans-serif font and the Okabe–Ito palette, which stays distinguishable under the
// common forms of colour blindness.
package viz
